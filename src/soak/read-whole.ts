// A file after a kill, read as the next command would find it: opened (its WAL replayed), then
// every column of every table read in full. Opening alone reads only the header and catalog; a
// torn block shows only when a query decompresses it, so each column is hashed row by row.

import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { sqlIdent } from '../store/sql.js';

export interface WholeRead {
  /** null when every table read in full; else the first error, as DuckDB gave it */
  error: string | null;
  tables: number;
  rows: number;
}

/** Opens `path` read-only and reads every column of every table; never throws. */
export async function readWhole(path: string): Promise<WholeRead> {
  if (!existsSync(path)) return { error: `${path} does not exist`, tables: 0, rows: 0 };
  let instance: DuckDBInstance | null = null;
  let tables = 0;
  let rows = 0;
  try {
    instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
    const connection = await instance.connect();
    try {
      const columns = (
        await connection.runAndReadAll(
          `SELECT table_name, list(column_name ORDER BY column_index) AS columns
           FROM duckdb_columns() WHERE database_name = current_database() AND NOT internal
             AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database())
           GROUP BY table_name ORDER BY table_name`,
        )
      ).getRowObjectsJS() as { table_name: string; columns: string[] }[];
      for (const { table_name: table, columns: cols } of columns) {
        const hashes = cols.map((c) => `max(hash(${sqlIdent(c)}))`).join(', ');
        const read = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n, ${hashes} FROM ${sqlIdent(table)}`);
        rows += Number((read.getRowObjectsJS()[0] as { n: bigint }).n);
        tables++;
      }
    } finally {
      connection.closeSync();
    }
    return { error: null, tables, rows };
  } catch (err) {
    return { error: firstLine(err instanceof Error ? err.message : String(err)), tables, rows };
  } finally {
    instance?.closeSync();
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
