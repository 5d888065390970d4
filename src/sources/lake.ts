// `--lake DIR`: the Parquet folder `convoduck export` writes, read as one database. An in-memory
// DuckDB gets one view per table, over the table's files (Hive partitions: `space` and `day` come
// from the path), with the columns and types of the native table, so that the reports' SQL runs
// unchanged and prints what it prints over one database. Nothing in DIR is written.
//
// The lake holds the public tables only (conversation_load_state among them: what reports read of
// the raw bodies). What reports read beyond them is derived here by the store's own rules:
// conversation_figures from the turns, visits and calls; the search index from the turns (a scan
// at each search: the lake has no index); and raw_conversations without its body (derived.ts).

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MANIFEST_FILE, readManifest } from '../exports/manifest.js';
import { InvalidInputError } from '../shared/errors.js';
import { Database } from '../store/database.js';
import { PUBLIC_TABLES, VIEWS_SQL } from '../store/schema.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { DERIVED_VIEWS } from './derived.js';
import { castColumns, nativeColumns } from './native-columns.js';

const WHAT_TO_DO = 'give the folder written by `convoduck export --out DIR --partition-by space,day`';

/** The manifest's checks: DIR is a Parquet export holding every public table. */
function checkLake(dir: string, shown: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new InvalidInputError(`--lake ${shown} is not a folder — ${WHAT_TO_DO}`);
  }
  const manifest = readManifest(dir, shown);
  if (!manifest) throw new InvalidInputError(`--lake ${shown} holds no convoduck export (${MANIFEST_FILE}) — ${WHAT_TO_DO}`);
  const formats = new Set([manifest.layout?.format, ...Object.values(manifest.tables).map((t) => t.format)].filter(Boolean));
  if ([...formats].some((f) => f !== 'parquet')) {
    throw new InvalidInputError(`--lake ${shown} holds a CSV export — --lake reads Parquet: export with --format parquet (the default)`);
  }
  const missing = PUBLIC_TABLES.filter((t) => !manifest.tables[t] || !hasParquet(join(dir, t)));
  if (missing.length > 0) {
    throw new InvalidInputError(
      `--lake ${shown} holds no ${missing.join(', ')} — export every table into it (convoduck export without --tables)`,
    );
  }
}

/** Whether a table's folder holds at least one Parquet file (an export always writes one, if only a 0-row one). */
function hasParquet(path: string): boolean {
  if (!existsSync(path) || !statSync(path).isDirectory()) return false;
  return readdirSync(path).some((e) => (e.endsWith('.parquet') ? true : hasParquet(join(path, e))));
}

/** Opens the lake in `dir` as an in-memory database of views (closed by the caller). */
export async function openLake(dir: string): Promise<Database> {
  const root = resolve(dir);
  checkLake(root, dir);
  const db = await Database.inMemory(`lake ${dir}`);
  try {
    const native = await nativeColumns(db);
    for (const table of PUBLIC_TABLES) {
      // every partition value as text: a slug of digits (`007`) stays the slug
      const files = `read_parquet(${sqlText(join(root, table, '**', '*.parquet'))}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
      const present = new Set(
        (await db.all<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${files})`)).map((r) => r.column_name),
      );
      const columns = castColumns(native.get(table)!, (c) => (present.has(c) ? sqlIdent(c) : null));
      await db.run(`CREATE VIEW ${sqlIdent(table)} AS SELECT ${columns} FROM ${files}`);
    }
    for (const [table, select] of DERIVED_VIEWS) {
      await db.run(`CREATE VIEW ${sqlIdent(table)} AS SELECT ${castColumns(native.get(table)!, sqlIdent)} FROM (${select})`);
    }
    await db.connection.run(VIEWS_SQL);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
