// `sync --recordings DIR` and a space's `recordings = "DIR"` / `recordings = false`: which folder a
// space's recordings go to (none: off), `--recordings-bandwidth` (one cap for every download of the
// run: the machine's link is shared by its spaces), and the crawl's hook that downloads them.

import path from 'node:path';
import type { CrawlOptions } from '../../crawler/sync.js';
import { failingDisk, parseDiskFault, type DiskFault } from '../../recordings/disk.js';
import { Bandwidth } from '../../recordings/download.js';
import { RecordingSession } from '../../recordings/session.js';
import { UsageError } from '../errors.js';

/** The space's folder: its config's (false: none), else the flag's; null: recordings off. */
export function recordingsDir(flag: string | undefined, configured: string | false | undefined): string | null {
  if (configured === false) return null;
  const dir = configured ?? flag;
  return dir === undefined ? null : path.resolve(dir);
}

const UNITS: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** `--recordings-bandwidth`: bytes per second, as `5MB/s`, `500KB/s`, `2MiB/s` or a plain number of bytes. */
export function parseBandwidth(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?(?:\/s)?\s*$/i.exec(value);
  const bytes = m ? Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    throw new UsageError(`--recordings-bandwidth ${JSON.stringify(value)} is not a rate — give bytes per second, e.g. 5MB/s, 500KB/s or 2MiB/s`);
  }
  return bytes;
}

export interface RecordingsRun {
  full: boolean;
  /** every download of the run together (null: unlimited) */
  bandwidth: Bandwidth;
  /** a line for the user, on stderr beside the progress */
  say: (line: string) => void;
  /** a failing disk in place of the real one (tests only) */
  diskFault?: DiskFault;
}

/** The run's settings of recordings: the cap parsed once, shared by the spaces. */
export function recordingsRun(bandwidthFlag: string | undefined, dirs: readonly (string | null)[], full: boolean, say: (line: string) => void): RecordingsRun {
  if (bandwidthFlag !== undefined && dirs.every((d) => d === null)) {
    throw new UsageError('--recordings-bandwidth caps the downloads of recordings, and none are on — add --recordings DIR (or recordings = "DIR" in the config)');
  }
  return { full, say, bandwidth: new Bandwidth(bandwidthFlag === undefined ? null : parseBandwidth(bandwidthFlag)), diskFault: testDiskFault() };
}

/**
 * Tests make the recordings' disk fail (`size=BYTES`: that small; `fail=EIO`, `EPIPE`, `ENOSPC`,
 * `destroy`, `throw`: every file after its first chunk) on any machine; users never need this.
 */
function testDiskFault(): DiskFault | undefined {
  const value = process.env.CONVODUCK_TEST_RECORDINGS_DISK;
  if (!value) return undefined;
  const fault = parseDiskFault(value);
  if (fault === null) throw new UsageError(`CONVODUCK_TEST_RECORDINGS_DISK ${JSON.stringify(value)} is not a disk fault — give size=BYTES or fail=CODE`);
  return fault;
}

/** The crawl's hook for a folder (undefined: off). */
export function recordingsHook(dir: string | null, run: RecordingsRun, signal: AbortSignal | undefined): CrawlOptions['recordings'] {
  if (dir === null) return undefined;
  return (space, client, writer) =>
    new RecordingSession(
      { dir, full: run.full, signal, bandwidth: run.bandwidth, disk: run.diskFault && failingDisk(run.diskFault, dir), onLine: (line) => run.say(`convoduck: ${line}`), onNote: run.say },
      space,
      client,
      writer,
    );
}
