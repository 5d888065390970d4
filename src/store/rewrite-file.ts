// DuckDB keeps a deleted row's bytes in the file: CHECKPOINT marks its blocks free and reuses them
// later, VACUUM does not reclaim them (DuckDB's docs, "Reclaiming space"). So after an erasure the
// database is copied, table by table, into a fresh file that only ever received the remaining rows,
// and the fresh file replaces the old one by rename (atomic on one file system: a reader opens
// either the old file or the new one, never half of one).
//
// The copy is not `COPY FROM DATABASE`: that recreates each table from its plain definition and so
// loses the raw bodies' ZSTD compression (a column's compression is fixed at CREATE); the schema is
// created from SCHEMA_SQL instead, then filled, and the sequences continue where they were.

import { basename, dirname, join } from 'node:path';
import { chmodSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { Database, RAISED_MEMORY_LIMIT, writableAttachOptions } from './database.js';
import { SCHEMA_SQL } from './schema.js';
import { fsyncPath, WAL_SUFFIXES } from './durable-files.js';
import { dropLastGood, keepLastGood } from './last-good.js';
import { sqlIdent, sqlText } from './sql.js';

/** convoduck_meta key set while removed rows' bytes may still be in the file (an erasure, a redaction at rest). */
export const REWRITE_PENDING = 'erasure_rewrite_pending';

/** Whether removed rows' bytes may still be in the file (a rewrite that did not finish). */
export async function rewritePending(db: Database): Promise<boolean> {
  const row = await db.one(`SELECT 1 FROM convoduck_meta WHERE key = ?`, [REWRITE_PENDING]);
  return row !== undefined;
}

/** Rewrites the database at `path` into a fresh file holding only its live rows; the caller holds the sync lock. */
export async function rewriteDatabaseFile(path: string): Promise<void> {
  const fresh = `${path}.rewrite-${process.pid}`;
  // a rewrite killed before its rename leaves its fresh file (a whole copy): the sync lock the
  // caller holds means no rewrite of this file is running, so any such leftover is dead
  removeLeftoverRewrites(path);
  try {
    await Database.with(
      path,
      async (db) => {
        // everything committed into the old file first: its WAL is then empty and can go
        await db.run('CHECKPOINT');
        await db.run(`ATTACH ${sqlText(fresh)} AS fresh (${writableAttachOptions()})`);
        await db.run('USE fresh');
        await db.run(SCHEMA_SQL);
        await db.run('USE store');
        await copyTables(db);
        await db.run(`DELETE FROM fresh.main.convoduck_meta WHERE key = ?`, [REWRITE_PENDING]);
        await db.run('DETACH fresh');
      },
      { mustExist: true, memoryLimit: RAISED_MEMORY_LIMIT },
    );
    chmodSync(fresh, 0o600);
    // the fresh file's bytes on the disk before the rename makes them the database: after a crash of
    // the machine the name never points at a file whose blocks were not written
    fsyncPath(fresh);
    // the old WAL (and DuckDB's checkpoint and recovery WALs) would be replayed onto the new file:
    // they must go first (they hold nothing, see above)
    for (const wal of WAL_SUFFIXES) rmSync(`${path}${wal}`, { force: true });
    renameSync(fresh, path);
    fsyncPath(dirname(path));
    // the copy a sync keeps held the erased or clear rows: it becomes the rewritten file, or goes
    try {
      keepLastGood(path);
    } catch {
      dropLastGood(path);
    }
  } finally {
    for (const leftover of [fresh, `${fresh}.wal`]) if (existsSync(leftover)) rmSync(leftover, { force: true });
  }
}

/** Fresh files (and their WALs) of rewrites of `path` that were killed before their rename. */
function removeLeftoverRewrites(path: string): void {
  const prefix = `${basename(path)}.rewrite-`;
  for (const entry of readdirSync(dirname(path))) {
    if (entry.startsWith(prefix)) rmSync(join(dirname(path), entry), { recursive: true, force: true });
  }
}

async function copyTables(db: Database): Promise<void> {
  const tables = await db.all<{ table_name: string }>(
    `SELECT table_name FROM duckdb_tables() WHERE database_name = 'store' AND schema_name = 'main' AND NOT temporary ORDER BY table_name`,
  );
  const known = new Set(
    (await db.all<{ table_name: string }>(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'fresh'`)).map((r) => r.table_name),
  );
  for (const { table_name: table } of tables) {
    const t = sqlIdent(table);
    await db.run(
      known.has(table)
        ? `INSERT INTO fresh.main.${t} BY NAME SELECT * FROM store.main.${t}`
        : `CREATE TABLE fresh.main.${t} AS SELECT * FROM store.main.${t}`, // a table of the user's own
    );
  }
  // views of the user's own, as they were defined (convoduck's own the fresh file has already)
  const ownViews = new Set(
    (await db.all<{ view_name: string }>(`SELECT view_name FROM duckdb_views() WHERE database_name = 'fresh' AND NOT internal`)).map((r) => r.view_name),
  );
  const views = (
    await db.all<{ view_name: string; sql: string }>(`SELECT view_name, sql FROM duckdb_views() WHERE database_name = 'store' AND NOT internal AND NOT temporary`)
  ).filter((v) => !ownViews.has(v.view_name));
  if (views.length > 0) {
    await db.run('USE fresh');
    for (const v of views) await db.run(v.sql);
    await db.run('USE store');
  }
  const sequences = await db.all<{ sequence_name: string; start_value: bigint; last_value: bigint | null }>(
    `SELECT sequence_name, start_value, last_value FROM duckdb_sequences() WHERE database_name = 'store' AND NOT temporary`,
  );
  for (const s of sequences) {
    const next = s.last_value === null ? s.start_value : s.last_value + 1n;
    await db.run(`DROP SEQUENCE IF EXISTS fresh.main.${sqlIdent(s.sequence_name)}`);
    await db.run(`CREATE SEQUENCE fresh.main.${sqlIdent(s.sequence_name)} START ${next}`);
  }
}
