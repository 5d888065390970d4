// Settings shared by the commands: where the database is. (API settings: see crawler config.)

import { resolve } from 'node:path';
import { InvalidInputError } from '../../shared/errors.js';

export const DEFAULT_DB = './convoduck.duckdb';

/** `--db`, else CONVODUCK_DB, else ./convoduck.duckdb. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.CONVODUCK_DB ?? DEFAULT_DB);
}

/** Where a command's data lives: one database file, or a folder of one file per space (`--db-dir`). */
export type DbLayout = { kind: 'file'; path: string } | { kind: 'dir'; dir: string };

/**
 * `--db` or `--db-dir` (never both), else CONVODUCK_DB_DIR or CONVODUCK_DB (never both), else
 * ./convoduck.duckdb.
 */
export function resolveDbLayout(flags: { db?: string; dbDir?: string }, env: NodeJS.ProcessEnv = process.env): DbLayout {
  if (flags.db !== undefined && flags.dbDir !== undefined) {
    throw new InvalidInputError('--db and --db-dir both given — name one database file, or one folder of space files');
  }
  if (flags.dbDir !== undefined) return { kind: 'dir', dir: resolve(flags.dbDir) };
  if (flags.db !== undefined) return { kind: 'file', path: resolve(flags.db) };
  if (env.CONVODUCK_DB_DIR !== undefined && env.CONVODUCK_DB !== undefined) {
    throw new InvalidInputError('CONVODUCK_DB and CONVODUCK_DB_DIR are both set — unset one, or pass --db or --db-dir');
  }
  if (env.CONVODUCK_DB_DIR !== undefined) return { kind: 'dir', dir: resolve(env.CONVODUCK_DB_DIR) };
  return { kind: 'file', path: resolveDbPath(undefined, env) };
}
