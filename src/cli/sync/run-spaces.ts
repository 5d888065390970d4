// The crawl of a multi-space `sync` over its layout: into one database file, one syncSpaces run
// (one lock for the file); into a folder of space files (`--db-dir`), one syncSpaces run per
// space and its file at once, each under that file's own lock, so that a space another process
// is syncing is skipped (or waited for, --wait) while the others run.

import { mkdirSync } from 'node:fs';
import { syncSpaces, type SpaceOutcome, type SpacesOptions, type SpaceStatus, type SpaceTarget } from '../../crawler/sync-spaces.js';
import { InvalidInputError, StoreError } from '../../shared/errors.js';
import { spaceDbPath } from '../../store/space-files.js';
import { SyncLockedError } from '../../store/sync-lock.js';
import type { DbLayout } from '../config/db-path.js';
import { CliError, EXIT, UsageError } from '../errors.js';

/** How a space's part of the run ended: as syncSpaces says, or skipped (its file's lock held), or refused settings. */
export type RunSpaceStatus = SpaceStatus | 'skipped' | 'usage';

export interface RunSpaceOutcome extends Omit<SpaceOutcome, 'status'> {
  status: RunSpaceStatus;
  /** the database file the space went to */
  dbPath: string;
}

export interface RunSpacesSummary {
  spaces: RunSpaceOutcome[];
  seconds: number;
}

/** What every space's run shares; dbPath and onStoredRedacted come from the layout. */
export type CommonOptions = Omit<SpacesOptions, 'spaces' | 'dbPath' | 'onStoredRedacted'>;

export async function runSpaces(
  targets: SpaceTarget[],
  layout: DbLayout,
  common: CommonOptions,
  onStoredRedacted: (dbPath: string) => SpacesOptions['onStoredRedacted'],
): Promise<RunSpacesSummary> {
  if (layout.kind === 'file') {
    const summary = await syncSpaces({ ...common, spaces: targets, dbPath: layout.path, onStoredRedacted: onStoredRedacted(layout.path) });
    return { seconds: summary.seconds, spaces: summary.spaces.map((o) => ({ ...o, dbPath: layout.path })) };
  }
  const started = Date.now();
  makeFolder(layout.dir);
  const only = common.only && common.only.length > 0 ? new Set(common.only) : null;
  const outcomes = await Promise.all(
    targets.map(async (target, i): Promise<RunSpaceOutcome | null> => {
      const slug = target.slug!;
      if (only !== null && !only.has(slug)) return null;
      const dbPath = spaceDbPath(layout.dir, slug);
      try {
        const summary = await syncSpaces({
          flushIntervalMs: spaceFileFlushMs(targets.length),
          ...common,
          only: [],
          spaces: [target],
          dbPath,
          onStoredRedacted: onStoredRedacted(dbPath),
        });
        return { ...summary.spaces[0]!, target: i, dbPath };
      } catch (err) {
        return { target: i, space: slug, status: statusOfThrown(err, common.signal), summary: null, error: err, counters: null, dbPath };
      }
    }),
  );
  return { spaces: outcomes.filter((o): o is RunSpaceOutcome => o !== null), seconds: (Date.now() - started) / 1000 };
}

/**
 * How long a space file's fetched details wait for their write. Each file is opened, checkpointed
 * and closed per write, and one file per space forgoes the sharing of openings one database gives
 * many spaces: the more files a process writes, the fewer openings each may cost.
 */
export function spaceFileFlushMs(files: number): number {
  return Math.min(30_000, Math.max(2_000, files * 1_000));
}

/** The folder of space files, made when missing (as --db makes its file): its parent must exist. */
function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    throw new UsageError(`--db-dir ${dir} cannot be made (${code ?? 'error'}): create its parent folder, or give a folder that exists`);
  }
}

/** A space's run that threw before it crawled: its file's lock held, its settings refused, or else. */
function statusOfThrown(err: unknown, signal: AbortSignal | undefined): RunSpaceStatus {
  if (signal?.aborted) return 'interrupted';
  if (err instanceof SyncLockedError) return 'skipped';
  if (err instanceof InvalidInputError || err instanceof StoreError || (err instanceof CliError && err.exitCode === EXIT.usage)) return 'usage';
  return 'failed';
}
