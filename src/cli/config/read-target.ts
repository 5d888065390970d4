// What a reading command (report, query, search) reads: one database file (`--db`), the space
// files of a folder (`--db-dir`), or a lake of Parquet exports (`--lake`), the last two as one
// database of views (src/sources/).

import type { ReadTarget } from '../../store/read-only.js';
import { UsageError } from '../errors.js';
import { resolveDbLayout } from './db-path.js';

export interface ReadFlags {
  db?: string;
  dbDir?: string;
  lake?: string;
}

/** `--lake DIR`, else `--db-dir`/`--db` as every command reads them (db-path.ts); `--lake` beside either is refused. */
export function resolveReadTarget(flags: ReadFlags, env: NodeJS.ProcessEnv = process.env): ReadTarget {
  if (flags.lake !== undefined) {
    const given = [flags.db !== undefined ? '--db' : null, flags.dbDir !== undefined ? '--db-dir' : null].filter(Boolean);
    if (given.length > 0) {
      throw new UsageError(`--lake and ${given.join(' and ')} both given — read the lake, or the database, not both`);
    }
    const shown = flags.lake;
    return { label: `lake ${shown}`, open: async () => (await import('../../sources/lake.js')).openLake(shown) };
  }
  const layout = resolveDbLayout(flags, env);
  if (layout.kind === 'file') return layout.path;
  const dir = layout.dir;
  return { label: `--db-dir ${dir}`, open: async () => (await import('../../sources/space-files.js')).openSpaceFiles(dir) };
}

/** The help line of `--lake`. */
export const LAKE_HELP = 'read a Parquet lake written by `export --out DIR --partition-by space,day` instead of a database (read-only)';
/** The help line of `--db-dir` on a reading command. */
export const DB_DIR_HELP = 'read the space files (<slug>.duckdb) of this folder as one database (default: $CONVODUCK_DB_DIR)';
