// An in-memory DuckDB for a test to read files with (Parquet, attached databases), closed after `work`.
import { DuckDBInstance } from '@duckdb/node-api';

export type Sql = (q: string) => Promise<Record<string, unknown>[]>;

export async function withDuck<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    return await work(async (q) => (await conn.runAndReadAll(q)).getRowObjectsJson() as Record<string, unknown>[]);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
