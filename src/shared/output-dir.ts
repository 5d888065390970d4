// The folders a command writes its files into (report --out, export --out, the demo's database).
//
// Node's own `mkdirSync(dir, { recursive: true })` never returns on a file system that answers
// ENOENT for a name it will not create (procfs): it creates the parent, gets EEXIST, and tries the
// child again for ever. So folders are created here one level at a time, each at most once.

import { closeSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InvalidInputError } from './errors.js';

/** Why the file system refused, in words, from the error's code. */
const REASONS: Record<string, string> = {
  ENOENT: 'the file system does not let anything be created there',
  EEXIST: 'a file, not a folder, is in the way',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'the file system does not allow it',
  ENAMETOOLONG: 'the name is too long',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  ELOOP: 'the path has a loop of symbolic links',
  ERR_INVALID_ARG_VALUE: 'the path holds a NUL byte',
  ERR_INVALID_ARG_TYPE: 'the path is not text',
};

/** The path as one printable line (a NUL or newline in it shown escaped). */
function shown(dir: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(dir) ? JSON.stringify(dir) : dir;
}

/**
 * Creates `dir` (with its parents when `parents`) and checks a file can be written in it, or says in one line why the file system would
 * not: bad input (exit 2), never a crash or a hang.
 */
export function createOutputDir(
  dir: string,
  mode?: number,
  { parents = true, flag = '--out' }: { parents?: boolean; flag?: string } = {},
): void {
  try {
    if (parents) createWithParents(dir, mode);
    else mkdirSync(dir, mode === undefined ? {} : { mode });
    probeWrite(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const reason = REASONS[code] ?? 'the file system refused';
    throw new InvalidInputError(`cannot write into the output folder ${shown(dir)}: ${reason} (${code}) — pass ${flag} with a folder you can write`);
  }
}

/** mkdir -p, one level at a time: every missing folder from the top down, each tried once. */
function createWithParents(dir: string, mode: number | undefined): void {
  const missing: string[] = [];
  for (let at = resolve(dir); ; at = dirname(at)) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind === 'other') throw Object.assign(new Error(`${at} is not a folder`), { code: missing.length === 0 ? 'EEXIST' : 'ENOTDIR' });
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, mode === undefined ? {} : { mode });
    } catch (err) {
      // another process made it meanwhile: fine, as long as it is a folder
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && kindOf(folder) === 'folder') continue;
      throw err;
    }
  }
}

/** Writes and removes a file in `dir`: a folder that is there but takes no file (read-only, procfs) is refused before any work. */
function probeWrite(dir: string): void {
  const probe = join(dir, `.convoduck-write-check-${process.pid}`);
  closeSync(openSync(probe, 'wx', 0o600));
  rmSync(probe, { force: true });
}

/** What is at `path`: a folder, something else, or nothing (other errors are thrown). */
function kindOf(path: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
}
