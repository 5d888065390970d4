// `sync --recordings DIR` and a space's `recordings = "DIR"` / `recordings = false`: which folder a
// space's recordings go to (none: off), and the crawl's hook that downloads them there.

import path from 'node:path';
import type { CrawlOptions } from '../../crawler/sync.js';
import { RecordingSession } from '../../recordings/session.js';

/** The space's folder: its config's (false: none), else the flag's; null: recordings off. */
export function recordingsDir(flag: string | undefined, configured: string | false | undefined): string | null {
  if (configured === false) return null;
  const dir = configured ?? flag;
  return dir === undefined ? null : path.resolve(dir);
}

/** The crawl's hook for a folder (undefined: off). Lines for the user go to stderr. */
export function recordingsHook(dir: string | null, full: boolean, signal: AbortSignal | undefined): CrawlOptions['recordings'] {
  if (dir === null) return undefined;
  return (space, client, writer) =>
    new RecordingSession(
      { dir, full, signal, onLine: (line) => process.stderr.write(`convoduck: ${line}\n`), onNote: (line) => process.stderr.write(`${line}\n`) },
      space,
      client,
      writer,
    );
}
