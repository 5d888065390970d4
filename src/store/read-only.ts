// Reading the database while a sync may be writing it. DuckDB lets one process hold the file
// at a time (even readers are shut out), and a sync holds it only while it commits a batch,
// so readers wait and retry, up to a bound, and say clearly when the bound ran out.

import { existsSync } from 'node:fs';
import { DatabaseBusyError, DatabaseReadError, InvalidInputError, oneLineError, StoreError } from '../shared/errors.js';
import { Database } from './database.js';

export const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export interface ReadOptions {
  /** how long to wait, in all, for another process to release the file (default 30 s) */
  lockTimeoutMs?: number;
  /** called once, when the first attempt finds the file held by another process */
  onWait?: () => void;
}

/**
 * Something read as one database that is not one file (src/sources/: a lake, a folder of space
 * files): opened afresh for each try, closed after it.
 */
export interface ReadSource {
  /** what messages call it (`lake /mnt/lake`) */
  label: string;
  open(): Promise<Database>;
}

/** What a command reads: one database file (its path), or a ReadSource. */
export type ReadTarget = string | ReadSource;

/** One try at the work. Once it has produced output, a lock error can no longer be retried. */
export interface ReadAttempt {
  /** set by the work once it has written anything the caller cannot take back */
  committed: boolean;
}

const LOCK_ERROR = /Could not set lock on file|Conflicting lock is held|stayed locked by another process/i;

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function isLockError(err: unknown): boolean {
  return LOCK_ERROR.test(errorMessage(err));
}

/** What a reader prints (once) when it finds the file held by another process. */
export function busyNotice(wait: string): string {
  return `convoduck: another process holds the database (a sync commits in batches): waiting up to ${wait}…\n`;
}

function busyMessage(dbPath: string, timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return (
    `database ${dbPath} stayed locked by another process for ${seconds} s ` +
    `(a running sync releases it between batches; something else may keep it open): ` +
    `try again, or wait longer with --wait`
  );
}

/**
 * Opens `target` (a file, or a ReadSource) read-only and runs `work`, retrying (open and work both) while another
 * process holds the file, for at most `lockTimeoutMs` in all. A lock error met after the work
 * set `attempt.committed` is not retried. Store errors become one-line InvalidInputError (no such
 * database) or DatabaseReadError; a file held past the bound is a DatabaseBusyError.
 */
export async function withReadOnlyDatabase<T>(
  target: ReadTarget,
  options: ReadOptions,
  work: (db: Database, attempt: ReadAttempt) => Promise<T>,
): Promise<T> {
  const dbPath = typeof target === 'string' ? target : target.label;
  if (typeof target === 'string' && !existsSync(dbPath)) {
    throw new InvalidInputError(`database ${dbPath} does not exist: run \`convoduck sync\` first, or pass --db FILE`);
  }
  const timeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  let warned = false;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    const attempt: ReadAttempt = { committed: false };
    let db: Database | undefined;
    try {
      // No waiting inside open: this loop retries, so that the first lock is reported at once
      // and a lock met by the work (not the open) shares the same deadline.
      db = typeof target === 'string' ? await Database.open(dbPath, { readOnly: true, lockTimeoutMs: 0 }) : await target.open();
      return await work(db, attempt);
    } catch (err) {
      if (!isLockError(err)) {
        if (err instanceof StoreError) {
          throw /does not exist|not a DuckDB database/.test(err.message)
            ? new InvalidInputError(err.message)
            : new DatabaseReadError(err.message);
        }
        throw err;
      }
      if (attempt.committed) throw new DatabaseBusyError(oneLineError(errorMessage(err)));
      if (Date.now() >= deadline) throw new DatabaseBusyError(busyMessage(dbPath, timeoutMs));
      if (!warned) {
        warned = true;
        options.onWait?.();
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, deadline - Date.now()))));
    } finally {
      db?.close();
    }
  }
}
