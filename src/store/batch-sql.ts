// The SQL plumbing of writes and reads in batches: a batch of ids as numbered parameters, rows
// loaded into a temp table through DuckDB's appender, a table read page by page.

import type { Database, Params } from './database.js';

/** `column IN ($1, …, $n)` for a batch of ids (the same numbered parameters may appear several times). */
export function inIds(ids: readonly string[], column: string, first = 1): string {
  if (ids.length === 0) return 'false';
  return `${column} IN (${ids.map((_, i) => `$${i + first}`).join(', ')})`;
}

/** The parameters `inIds` refers to. */
export function idParams(ids: readonly string[]): Params | undefined {
  return ids.length === 0 ? undefined : [...ids];
}

/** Loads rows of text into a fresh temp table through DuckDB's appender (the fast path). */
export async function stage(db: Database, name: string, columns: readonly string[], rows: Iterable<(string | null)[]>): Promise<void> {
  await db.run(`CREATE OR REPLACE TEMP TABLE ${name} (${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
  const appender = await db.connection.createAppender(name);
  try {
    for (const row of rows) {
      for (const value of row) {
        if (value === null) appender.appendNull();
        else appender.appendVarchar(value);
      }
      appender.endRow();
    }
  } finally {
    appender.closeSync();
  }
}

/** Raw rows read at once: bodies are a few KB, some a few MB. */
const PAGE_ROWS = 2_000;

/** Calls `each` with the rows of `sql` (which must select `rowid`) page by page, in rowid order. */
export async function pages<T>(db: Database, table: string, sql: (range: string) => string, each: (rows: T[]) => Promise<void>): Promise<void> {
  const top = Number((await db.one<{ n: number | null }>(`SELECT max(rowid)::BIGINT AS n FROM ${table}`))?.n ?? -1);
  for (let lo = 0; lo <= top; lo += PAGE_ROWS) {
    const rows = await db.all(sql(`rowid BETWEEN ${lo} AND ${lo + PAGE_ROWS - 1}`));
    if (rows.length > 0) await each(rows as T[]);
  }
}
