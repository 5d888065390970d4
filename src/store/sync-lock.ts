// One sync per database. DuckDB's own lock cannot serve: the sync releases the file between
// batches so that readers get in, so a second sync would get in too.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export class SyncLockedError extends Error {
  constructor(
    readonly pid: number,
    readonly lockPath: string,
    /** how long the caller waited for the lock before giving up (0: it did not wait) */
    readonly waitedMs = 0,
  ) {
    super(
      `another convoduck sync (pid ${pid}) is already writing this database: wait for it to finish ` +
        `(or, if no such process exists, delete ${lockPath})`,
    );
    this.name = 'SyncLockedError';
  }
}

export interface SyncLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process holding the database's sync lock, or null (none, or left by a killed run). */
export function syncLockHolder(dbPath: string): number | null {
  try {
    const pid = Number(readFileSync(`${dbPath}.sync-lock`, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Locks held by this process (a pid check cannot tell two in-process syncs apart). */
const heldHere = new Set<string>();

/** How often a sync that waits for another one looks at the lock again. */
const WAIT_POLL_MS = 500;

/**
 * The lock, waiting up to `waitMs` for the sync that holds it to end (0: not at all); then, or
 * once `signal` aborts, the SyncLockedError that says who holds it.
 */
export async function waitForSyncLock(dbPath: string, waitMs: number, signal?: AbortSignal): Promise<SyncLock> {
  const started = Date.now();
  for (;;) {
    try {
      return acquireSyncLock(dbPath);
    } catch (err) {
      if (!(err instanceof SyncLockedError)) throw err;
      const waited = Date.now() - started;
      if (waited >= waitMs || signal?.aborted) throw new SyncLockedError(err.pid, err.lockPath, waitMs > 0 ? waited : 0);
      await new Promise((r) => setTimeout(r, Math.min(WAIT_POLL_MS, waitMs - waited)));
    }
  }
}

export function acquireSyncLock(dbPath: string): SyncLock {
  const lockPath = `${dbPath}.sync-lock`;
  if (heldHere.has(lockPath)) throw new SyncLockedError(process.pid, lockPath);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(lockPath);
      return {
        release: () => {
          heldHere.delete(lockPath);
          rmSync(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = syncLockHolder(dbPath);
      if (pid !== null && pid !== process.pid) throw new SyncLockedError(pid, lockPath);
      // Left behind by a run that was killed: take it over.
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`cannot take the sync lock ${lockPath}`);
}
