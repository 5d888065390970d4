// `convoduck query`: run SQL against the database read-only and stream the last statement's
// result out (output/result.ts).

import type { DuckDBResult } from '@duckdb/node-api';
import type { Writable } from 'node:stream';
import { OutputSink } from '../output/sink.js';
import { writeResult, type ResultOptions } from '../output/result.js';
import { sessionWallClock } from '../output/values.js';
import { ConvoduckError, InvalidInputError, oneLineError, QueryError } from '../shared/errors.js';
import type { Database } from '../store/database.js';
import { isLockError, withReadOnlyDatabase, type ReadAttempt, type ReadTarget } from '../store/read-only.js';
import { limitToSpaces } from '../store/space-scope.js';


export interface QueryOptions extends Omit<ResultOptions, 'wallClock'> {
  /** where the rows go (default stdout) */
  out?: Writable;
  /** how long to wait for a sync to release the file (default 30 s) */
  lockTimeoutMs?: number;
  /** called once when the database is busy and the query starts waiting */
  onWait?: () => void;
  /** the tables hold only these spaces' rows (see space-scope.ts) */
  spaces?: readonly string[];
}

export interface QueryResult {
  columns: string[];
  rows: number;
  /** the reader of the output went away before the last row (e.g. `| head`) */
  truncated: boolean;
}

/** True when `sql` holds nothing but blanks and comments. */
export function isBlankSql(sql: string): boolean {
  return (
    sql
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/--[^\n]*/g, '')
      .replace(/;/g, '')
      .trim() === ''
  );
}

/** Runs every statement of `sql`; the last one's result streams to `options.out`. */
export async function runQuery(dbPath: ReadTarget, sql: string, options: QueryOptions): Promise<QueryResult> {
  if (isBlankSql(sql)) throw new InvalidInputError('no SQL to run: pass a statement, e.g. convoduck query "SELECT 1"');
  const out = options.out ?? process.stdout;
  return withReadOnlyDatabase(dbPath, { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait }, (db, attempt) =>
    execute(db, sql, out, options, attempt),
  );
}

async function execute(
  db: Database,
  sql: string,
  out: Writable,
  options: QueryOptions,
  attempt: ReadAttempt,
): Promise<QueryResult> {
  let result: DuckDBResult;
  let zone: string;
  await limitToSpaces(db, options.spaces ?? []);
  try {
    const statements = await db.connection.extractStatements(sql);
    if (statements.count === 0) throw new InvalidInputError('no SQL to run: pass a statement, e.g. convoduck query "SELECT 1"');
    for (let i = 0; i < statements.count - 1; i++) {
      await (await statements.prepare(i)).run();
    }
    // Read before the last statement streams: another query would end that stream.
    zone = await sessionTimeZone(db);
    result = await (await statements.prepare(statements.count - 1)).stream();
  } catch (err) {
    throw sqlError(err);
  }
  const sink = new OutputSink(out);
  try {
    const rows = await writeResult(result, { ...options, wallClock: sessionWallClock(zone) }, sink, () => {
      attempt.committed = true;
    });
    await sink.end();
    return { columns: result.deduplicatedColumnNames(), rows, truncated: sink.closed };
  } catch (err) {
    await sink.end().catch(() => undefined);
    throw sqlError(err);
  }
}

/** The session's TimeZone (DuckDB's `SET TimeZone`), in which a TIMESTAMP without zone is read. */
async function sessionTimeZone(db: Database): Promise<string> {
  const reader = await db.connection.runAndReadAll(`SELECT current_setting('TimeZone') AS zone`);
  return String(reader.getRowObjectsJS()[0]?.zone ?? 'UTC');
}

function sqlError(err: unknown): unknown {
  if (err instanceof ConvoduckError || isLockError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new QueryError(oneLineError(message));
}
