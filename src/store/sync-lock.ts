// One sync per database. DuckDB's own lock cannot serve: the sync releases the file between
// batches so that readers get in, so a second sync would get in too.

import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export class SyncLockedError extends Error {
  constructor(readonly pid: number, lockPath: string) {
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
