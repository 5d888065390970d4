// The columns of every table of convoduck's schema (and of the view conversation_load_state, which
// export writes as a table), in order, with their types: what a view over a lake or over many
// space files must give back, so that reports read the same values and print the same bytes as
// over one database.

import { LOAD_STATE_VIEW_SQL } from '../store/load-state.js';
import { SCHEMA_SQL } from '../store/schema.js';
import type { Database } from '../store/database.js';
import { sqlIdent } from '../store/sql.js';

export interface NativeColumn {
  name: string;
  /** DuckDB's name of the type (`TIMESTAMP WITH TIME ZONE`, `JSON`, `UUID`, …) */
  type: string;
}

const SCRATCH = 'convoduck_native_schema';

/** Table → its columns, read from the schema created in a scratch in-memory catalog of `db`, then dropped. */
export async function nativeColumns(db: Database): Promise<Map<string, NativeColumn[]>> {
  await db.run(`ATTACH ':memory:' AS ${SCRATCH}`);
  try {
    await db.run(`USE ${SCRATCH}`);
    await db.connection.run(SCHEMA_SQL + LOAD_STATE_VIEW_SQL);
    await db.run('USE memory');
    const rows = await db.all<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT table_name, column_name, data_type FROM duckdb_columns()
       WHERE database_name = '${SCRATCH}' AND schema_name = 'main' ORDER BY table_name, column_index`,
    );
    const tables = new Map<string, NativeColumn[]>();
    for (const r of rows) {
      if (!tables.has(r.table_name)) tables.set(r.table_name, []);
      tables.get(r.table_name)!.push({ name: r.column_name, type: r.data_type });
    }
    return tables;
  } finally {
    await db.run('USE memory');
    await db.run(`DETACH ${SCRATCH}`);
  }
}

/** `CAST("c" AS T) AS "c", …`: the native columns, each cast from `expression(c)` (null: NULL). */
export function castColumns(columns: readonly NativeColumn[], expression: (name: string) => string | null): string {
  return columns.map((c) => `CAST(${expression(c.name) ?? 'NULL'} AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ');
}
