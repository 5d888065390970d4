// Settings shared by the commands: where the database is. (API settings: see crawler config.)

import { resolve } from 'node:path';

export const DEFAULT_DB = './convoduck.duckdb';

/** `--db`, else CONVODUCK_DB, else ./convoduck.duckdb. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.CONVODUCK_DB ?? DEFAULT_DB);
}
