// A sync that finds its file damaged puts the last-good copy (last-good.ts) in its place before it
// opens it, so that an unattended job heals by itself: the damaged file and its WAL are kept
// beside it under a new name (nothing is deleted), the copy stays the copy, and the sync then
// fetches again what came after the copy (the load state lives in the file). Only a writer that
// holds the sync lock restores; readers only say what the next sync will do.

import { constants, copyFileSync, existsSync, linkSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fsyncPath, WAL_SUFFIXES } from './durable-files.js';
import { isDamagedFileError, lastGoodPath, openingError } from './last-good.js';

/** What a restore did: where the damaged file went, and when the copy put in its place was taken. */
export interface Restored {
  /** the database's path */
  path: string;
  /** where the damaged file is kept */
  damagedPath: string;
  /** the damaged file's WAL files, kept beside it under its new name */
  walsKept: string[];
  /** when the copy was taken (its modification time): what came after it is fetched again */
  copyTakenAt: Date;
  /** the error the damaged file gave, one line */
  error: string;
}

/** `FILE.damaged-20261129T105532Z`: the name a damaged file is kept under. */
export function damagedPathOf(path: string, at: Date): string {
  return `${path}.damaged-${at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '')}`;
}

/** What a sync found its file to be before it opened it, and what it did about it. */
export interface Healing {
  /** the file did not open because it is damaged (restored or not) */
  damaged: boolean;
  /** the copy put in its place; null when none was (the file opened, or no copy opens) */
  restored: Restored | null;
}

/**
 * When the file at `path` does not open because it is damaged and its last-good copy opens, moves
 * the damaged file (and its WAL) aside and puts a copy of the copy in its place. Restores nothing
 * when the file opens, is missing, fails for another reason, or has no whole copy: then nothing is
 * moved and the opening that follows fails as it would have. The caller holds the sync lock, and
 * nothing of this process has the file open.
 */
export async function restoreIfDamaged(path: string, now: Date = new Date()): Promise<Healing> {
  removeLeftoverRestores(path);
  if (!existsSync(path) || statSync(path).size === 0) return { damaged: false, restored: null };
  const error = await openingError(path);
  if (error === null || !isDamagedFileError(error)) return { damaged: false, restored: null };
  const copy = lastGoodPath(path);
  if (!existsSync(copy) || (await openingError(copy)) !== null) return { damaged: true, restored: null };
  const copyTakenAt = statSync(copy).mtime;

  // the copy's copy first, written aside and fsynced: the name never points at half a file
  const fresh = `${path}.restoring-${process.pid}`;
  try {
    copyFileSync(copy, fresh, constants.COPYFILE_FICLONE);
    fsyncPath(fresh);
    let damagedPath = damagedPathOf(path, now);
    for (let n = 2; existsSync(damagedPath); n++) damagedPath = `${damagedPathOf(path, now)}.${n}`;
    // the damaged file keeps its bytes under the new name (a second name, then the rename below
    // replaces the first): a kill meanwhile leaves the damaged file where it was, and the next sync
    // restores again
    keepUnderName(path, damagedPath);
    // its WAL must not be replayed onto the copy: it goes with the damaged file
    const walsKept: string[] = [];
    for (const suffix of WAL_SUFFIXES) {
      if (!existsSync(`${path}${suffix}`)) continue;
      renameSync(`${path}${suffix}`, `${damagedPath}${suffix}`);
      walsKept.push(`${damagedPath}${suffix}`);
    }
    renameSync(fresh, path);
    fsyncPath(dirname(path));
    return { damaged: true, restored: { path, damagedPath, walsKept, copyTakenAt, error } };
  } finally {
    rmSync(fresh, { force: true });
  }
}

/** A second name for the file's bytes: a hard link, or a copy where the file system has none. */
function keepUnderName(path: string, name: string): void {
  try {
    linkSync(path, name);
  } catch {
    copyFileSync(path, name, constants.COPYFILE_FICLONE);
    fsyncPath(name);
  }
}

/** Copies of a restore killed before their rename (the caller holds the sync lock: none is under way). */
function removeLeftoverRestores(path: string): void {
  const prefix = `${basename(path)}.restoring-`;
  for (const entry of readdirSync(dirname(path))) if (entry.startsWith(prefix)) rmSync(join(dirname(path), entry), { force: true });
}

