// `convoduck query`: run SQL against the database read-only and stream the result out as a
// table, CSV, JSON or NDJSON. Rows are fetched chunk by chunk (DuckDB's streaming result),
// so a result larger than memory still comes out.

import type { DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import type { Writable } from 'node:stream';
import { CsvWriter } from '../output/csv.js';
import { OutputSink } from '../output/sink.js';
import { DEFAULT_MAX_CELL_WIDTH, TableLayout } from '../output/table.js';
import { jsonRow, sessionWallClock, UTC_WALL_CLOCK, type Column, type WallClock } from '../output/values.js';
import { rowRedactor, type Redaction } from '../redact/outputs.js';
import { ConvoduckError, InvalidInputError, oneLineError, QueryError } from '../shared/errors.js';
import type { Database } from '../store/database.js';
import { isLockError, withReadOnlyDatabase, type ReadAttempt } from '../store/read-only.js';
import { limitToSpaces } from '../store/space-scope.js';
import type { QueryFormat } from '../output/formats.js';


export interface QueryOptions {
  format: QueryFormat;
  /** where the rows go (default stdout) */
  out?: Writable;
  /** how long to wait for a sync to release the file (default 30 s) */
  lockTimeoutMs?: number;
  /** called once when the database is busy and the query starts waiting */
  onWait?: () => void;
  /** table format: longest cell shown before it is cut with `…` (default 48) */
  maxCellWidth?: number;
  /** table format: rows read before column widths are fixed (default 1000) */
  tableSampleRows?: number;
  /** the tables hold only these spaces' rows (see space-scope.ts) */
  spaces?: readonly string[];
  /** csv: keep text cells that look like spreadsheet formulas as they are */
  raw?: boolean;
  /** --redact: the result's columns named in src/redact/outputs.ts cleaned, in every format */
  redaction?: Redaction | null;
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
export async function runQuery(dbPath: string, sql: string, options: QueryOptions): Promise<QueryResult> {
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

/**
 * Streams a DuckDB result into `sink` in the given format and returns the row count.
 * `onOutput` is called before the first byte is written. Stops early if the sink closes.
 */
export async function writeResult(
  result: DuckDBResult,
  options: Pick<QueryOptions, 'format' | 'maxCellWidth' | 'tableSampleRows' | 'raw' | 'redaction'> & { wallClock?: WallClock },
  sink: OutputSink,
  onOutput: () => void = () => undefined,
): Promise<number> {
  const names = result.deduplicatedColumnNames();
  const columns: Column[] = names.map((name, i) => ({ name, type: result.columnType(i) }));
  const wall = options.wallClock ?? UTC_WALL_CLOCK;
  // the user's own SQL cannot be wrapped in the redaction functions: its rows are cleaned here
  const redact = options.redaction ? rowRedactor(names, options.redaction) : null;
  let count = 0;
  let started = false;
  const write = async (text: string) => {
    if (!started) {
      started = true;
      onOutput();
    }
    await sink.write(text);
  };

  async function* chunks(): AsyncGenerator<DuckDBValue[][]> {
    for (;;) {
      if (sink.closed) return;
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) return;
      yield redact ? chunk.getRows().map(redact) : chunk.getRows();
    }
  }

  switch (options.format) {
    case 'csv': {
      const csv = new CsvWriter(columns, { wall, raw: options.raw ?? false });
      await write(csv.header());
      for await (const rows of chunks()) {
        await write(rows.map((row) => csv.row(row)).join(''));
        count += rows.length;
      }
      break;
    }
    case 'ndjson': {
      for await (const rows of chunks()) {
        await write(rows.map((row) => `${jsonRow(columns, row, wall)}\n`).join(''));
        count += rows.length;
      }
      break;
    }
    case 'json': {
      for await (const rows of chunks()) {
        await write(rows.map((row) => `${count++ === 0 ? '[\n' : ',\n'}${jsonRow(columns, row, wall)}`).join(''));
      }
      await write(count === 0 ? '[]\n' : '\n]\n');
      break;
    }
    case 'table': {
      const sampleSize = options.tableSampleRows ?? 1000;
      const sample: DuckDBValue[][] = [];
      const source = chunks();
      for (;;) {
        if (sample.length >= sampleSize) break;
        const next = await source.next();
        if (next.done) break;
        sample.push(...next.value);
      }
      const layout = new TableLayout(columns, sample, options.maxCellWidth ?? DEFAULT_MAX_CELL_WIDTH, wall);
      await write(layout.header() + sample.map((row) => layout.row(row)).join(''));
      count = sample.length;
      for await (const rows of source) {
        await write(rows.map((row) => layout.row(row)).join(''));
        count += rows.length;
      }
      break;
    }
  }
  await sink.flush();
  return count;
}
