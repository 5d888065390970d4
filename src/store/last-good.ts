// A copy of the database as the last sync left it, closed and whole, beside it as FILE.last-good.
// DuckDB rewrites a metadata block of the file in place at a checkpoint while the file's header
// still points into it (its metadata manager reuses a block's free slots), and a SIGKILL can cut
// that write short: the header's own metadata then fails its checksum and the file does not open.
// No order of our own writes prevents it, so the state a run committed is kept twice.

import { DuckDBInstance } from '@duckdb/node-api';
import { constants, copyFileSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncPath } from './durable-files.js';

/** The copy of `path` a sync keeps. */
export function lastGoodPath(path: string): string {
  return `${path}.last-good`;
}

/**
 * Copies `path` to its last-good copy (a clone where the file system has them), when the file is
 * whole on its own: closed, with no WAL beside it. The copy is written aside, fsynced and renamed
 * into place, so a kill meanwhile leaves the previous copy. Returns whether a copy was made.
 */
export function keepLastGood(path: string): boolean {
  if (!existsSync(path) || existsSync(`${path}.wal`) || statSync(path).size === 0) return false;
  // copies cut short by a kill (the caller holds the sync lock: no other copy is under way)
  const prefix = `${basename(lastGoodPath(path))}.`;
  for (const entry of readdirSync(dirname(path))) if (entry.startsWith(prefix)) rmSync(join(dirname(path), entry), { force: true });
  const aside = `${lastGoodPath(path)}.${process.pid}`;
  try {
    copyFileSync(path, aside, constants.COPYFILE_FICLONE);
    fsyncPath(aside);
    renameSync(aside, lastGoodPath(path));
    fsyncPath(dirname(path));
    return true;
  } finally {
    rmSync(aside, { force: true });
  }
}

/** Drops the copy (a rewrite that erased rows from the file must not leave them in the copy). */
export function dropLastGood(path: string): void {
  rmSync(lastGoodPath(path), { force: true });
}

/**
 * Whether an opening failed because the file is damaged (a block that fails its checksum, metadata
 * that does not read, a file shorter than its blocks), as against busy, missing, not a database,
 * or written by a newer DuckDB.
 */
export function isDamagedFileError(message: string): boolean {
  return /Corrupt|checksum|MetadataReader|Could not read enough bytes/i.test(message);
}

/** The first line of the error an opening of `path` fails with, or null when it opens. */
export async function openingError(path: string): Promise<string | null> {
  try {
    const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
    instance.closeSync();
    return null;
  } catch (err) {
    return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  }
}

/**
 * What to tell a person whose file does not open because it is damaged, when a copy exists: that
 * the next sync restores from it, or, when the copy does not open either, that no sync will and
 * what to do instead (the load state lives in the file: a new file fetches everything again).
 */
export async function lastGoodHint(path: string, message: string): Promise<string> {
  if (!isDamagedFileError(message) || !existsSync(lastGoodPath(path))) return '';
  const copy = lastGoodPath(path);
  const copyError = await openingError(copy);
  if (copyError !== null && isDamagedFileError(copyError)) {
    return (
      ` — the file is damaged, and so is its last-good copy ${copy} (${copyError}): no sync can restore it; ` +
      `move both aside and run \`convoduck sync\`, which fetches everything again into a new file ` +
      `(run your \`forget\`s again), or put back a backup`
    );
  }
  const at = statSync(copy).mtime.toISOString().replace(/\.\d+Z$/, 'Z');
  return (
    ` — the file is damaged; ${copy} is a whole copy of it from ${at}: the next \`convoduck sync\` ` +
    `keeps the damaged file aside, puts the copy in its place and fetches again what came after`
  );
}
