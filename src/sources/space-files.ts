// `--db-dir DIR` for the commands that read: the space files of DIR (DIR/<slug>.duckdb), each
// attached read-only to an in-memory DuckDB, and every table a view of the union of the files'
// tables, column by column in the native order and types. Every table is there (the load state
// and the search index too), so reports, queries and searches read what one database holding
// the same spaces would give them. No file is written, except that a file of an older schema is
// brought up to date first, as any read of it would.

import { InvalidInputError } from '../shared/errors.js';
import { Database } from '../store/database.js';
import { SCHEMA_VERSION, VIEWS_SQL } from '../store/schema.js';
import { listSpaceDbs } from '../store/space-files.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { castColumns, nativeColumns } from './native-columns.js';

/** The schema version a file records (null: none). */
async function versionOf(db: Database, alias: string): Promise<number | null> {
  const row = await db
    .one<{ value: string }>(`SELECT value FROM ${alias}.convoduck_meta WHERE key = 'schema_version'`)
    .catch(() => undefined);
  return row ? Number(row.value) : null;
}

/** Attaches `path` read-only as `alias`, upgraded first when a convoduck before this one wrote it. */
async function attachSpace(db: Database, path: string, alias: string, lockTimeoutMs: number): Promise<void> {
  const attach = `ATTACH ${sqlText(path)} AS ${alias} (READ_ONLY)`;
  await db.run(attach);
  const version = await versionOf(db, alias);
  if (version !== null && version > SCHEMA_VERSION) {
    throw new InvalidInputError(`${path} was written by a newer convoduck (schema ${version}) — upgrade convoduck`);
  }
  if (version === null || version === SCHEMA_VERSION) return;
  await db.run(`DETACH ${alias}`);
  // a read-only open of an older file upgrades it, as a read of one database does
  (await Database.open(path, { readOnly: true, lockTimeoutMs })).close();
  await db.run(attach);
}

/** Opens the space files of `dir` as an in-memory database of views (closed by the caller). */
export async function openSpaceFiles(dir: string, lockTimeoutMs = 0): Promise<Database> {
  const spaces = listSpaceDbs(dir);
  if (spaces.length === 0) {
    throw new InvalidInputError(`--db-dir ${dir} holds no space file (<slug>.duckdb) — sync into it first: convoduck sync --db-dir ${dir}`);
  }
  const db = await Database.inMemory(`--db-dir ${dir}`);
  try {
    const aliases = spaces.map((_, i) => `space_${i}`);
    for (const [i, space] of spaces.entries()) await attachSpace(db, space.path, aliases[i]!, lockTimeoutMs);
    for (const [table, columns] of await nativeColumns(db)) {
      const list = castColumns(columns, sqlIdent);
      const union = aliases.map((a) => `SELECT ${list} FROM ${a}.main.${sqlIdent(table)}`).join('\nUNION ALL\n');
      await db.run(`CREATE VIEW ${sqlIdent(table)} AS ${union}`);
    }
    await db.connection.run(VIEWS_SQL);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
