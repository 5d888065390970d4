// What a file replaced beside a database needs to be durable: an fsync of the file and of its
// folder (a rename is durable once its folder is), and the names of the WAL files DuckDB keeps
// beside a database, which belong to the file they were written for.

import { closeSync, fsyncSync, openSync } from 'node:fs';

/** The files DuckDB keeps beside a database: its WAL, and the WALs of a checkpoint and of a recovery under way. */
export const WAL_SUFFIXES = ['.wal', '.wal.checkpoint', '.wal.recovery'] as const;

/** fsync of a file or a folder. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
