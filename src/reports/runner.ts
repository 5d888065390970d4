// Runs reports: opens the database read-only (waiting, like every reader, while a sync holds
// it), creates the shared relations (sql/shared/) its reports read with bound parameters, and
// writes each report through a generic formatting SELECT: CSV by the CSV rules every command
// shares (its lines rendered in SQL and written by DuckDB's COPY, or by CsvWriter when a column is
// a list or struct), JSON and Parquet by DuckDB's COPY.

import { StatementType, VARCHAR, type DuckDBConnection, type DuckDBResult, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { csvHeader, csvLinesSql, CsvWriter } from '../output/csv.js';
import { sessionWallClock } from '../output/values.js';
import { registerRedaction, type Redaction } from '../redact/outputs.js';
import { withReadOnlyDatabase, type ReadTarget } from '../store/read-only.js';
import { ConvoduckError, InvalidInputError, QueryError } from '../shared/errors.js';
import { createOutputDir } from '../shared/output-dir.js';
import { pick, reportParameters, runBound, streamBound } from './bound.js';
import { loadCatalog, type CustomReportDir, type ReportDefinition } from './catalog.js';
import type { OutputFormat } from './choices.js';
import { outputSelectList, type ColumnInfo } from './format.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { BIND_TYPES, bindValues, type ParamName, type ReportFilters } from '../filters/params.js';
import { resolveParams } from '../filters/resolve.js';
import { createSharedRelations, loadSharedRelations } from './shared-relations.js';
import { parquetKvMetadata, writeColumnDocs } from './column-docs.js';
import { reportBody } from './sql-file.js';

export interface RunReportsOptions {
  dbPath: ReadTarget;
  /** report names; empty or absent runs every report */
  names?: readonly string[];
  /** folder the files go to (created if missing) */
  outDir: string;
  /** default csv */
  format?: OutputFormat;
  filters?: ReportFilters;
  /** csv: keep text cells as they are (no formula neutralisation) */
  raw?: boolean;
  /** csv: UTF-8 byte-order mark and CRLF line ends, for spreadsheet programs */
  excel?: boolean;
  /** --redact: personal data in the redacted columns (src/redact/outputs.ts) replaced */
  redaction?: Redaction | null;
  /** where the reports' `.sql` files are; default the package's sql/ */
  sqlDir?: string;
  /** a folder of the user's own reports, run beside those of `sqlDir` */
  customSqlDir?: CustomReportDir | null;
  /** where the shared relations' `.sql` files are; default the package's sql/shared/ */
  sharedSqlDir?: string;
  /** how long to wait, in all, for another process (a sync) to release the file (default 30 s) */
  lockTimeoutMs?: number;
  /** called once when the database is busy and the run starts waiting */
  onWait?: () => void;
  /** called after each report is written (the CLI prints a line) */
  onReport?: (result: ReportResult) => void;
}

export interface ReportResult {
  name: string;
  title: string;
  /** the file written */
  path: string;
  rows: number;
  columns: string[];
}

/** Picks reports by name, in the order asked (duplicates once); unknown names are an InvalidInputError. */
export function selectReports(all: readonly ReportDefinition[], names: readonly string[] = []): ReportDefinition[] {
  if (names.length === 0) return [...all];
  const byName = new Map(all.map((r) => [r.name, r]));
  const unknown = names.filter((n) => !byName.has(n));
  const guesses = unknown.map((n) => closest(n, [...byName.keys()]));
  if (unknown.length === 1 && guesses[0]) {
    throw new InvalidInputError(`unknown report ${JSON.stringify(unknown[0])} — did you mean ${guesses[0]}? (report --list shows them all)`);
  }
  if (unknown.length > 0) {
    throw new InvalidInputError(
      `unknown report ${unknown.map((n) => JSON.stringify(n)).join(', ')}: available reports are ${all.map((r) => r.name).join(', ')}`,
    );
  }
  return [...new Set(names)].map((n) => byName.get(n)!);
}

/** The one name within two edits of `name` (a letter missing, extra or changed), if exactly one is. */
function closest(name: string, names: readonly string[]): string | null {
  const near = names.filter((n) => editDistance(name.toLowerCase(), n) <= 2);
  return near.length === 1 ? near[0]! : null;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

export async function runReports(options: RunReportsOptions): Promise<ReportResult[]> {
  const format = options.format ?? 'csv';
  if (options.excel && format !== 'csv') throw new InvalidInputError('--excel only applies to --format csv');
  const catalog = loadCatalog(options.customSqlDir, options.sqlDir);
  const reports = selectReports(catalog, options.names);
  const shared = loadSharedRelations(options.sharedSqlDir);

  const read = { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait };
  return withReadOnlyDatabase(options.dbPath, read, async (db, attempt) => {
    const params = await resolveParams(db.connection, options.filters ?? {});
    if (options.redaction) registerRedaction(db.connection, options.redaction);
    // A TIMESTAMP a report returns (local time in --tz, like started_local) is read in --tz
    // when it is printed as a UTC instant, and so is any cast a report makes.
    await db.connection.run(`SET TimeZone = ${sqlText(params.tz)}`);
    const values = bindValues(params);
    await createSharedRelations(db.connection, shared, reports, values);

    createOutputDir(options.outDir);
    const results: ReportResult[] = [];
    for (const report of reports) {
      const result = await writeReport(db.connection, report, values, {
        outDir: options.outDir,
        format,
        raw: options.raw ?? false,
        excel: options.excel ?? false,
        redact: Boolean(options.redaction),
        tz: params.tz,
      });
      results.push(result);
      attempt.committed = true; // a file is written and announced: no second try from the top
      options.onReport?.(result);
    }
    writeColumnDocs(options.outDir, catalog);
    return results;
  });
}

// ---------------------------------------------------------------------------------------------
// writing

interface WriteOptions {
  outDir: string;
  format: OutputFormat;
  raw: boolean;
  excel: boolean;
  redact: boolean;
  /** the session's TimeZone, in which a TIMESTAMP without zone is read */
  tz: string;
}

const EXTENSIONS: Record<OutputFormat, string> = { csv: 'csv', json: 'json', parquet: 'parquet' };
const OUTPUT_PATH_PARAM = 'output_path';

async function writeReport(
  connection: DuckDBConnection,
  report: ReportDefinition,
  values: Record<ParamName, DuckDBValue>,
  options: WriteOptions,
): Promise<ReportResult> {
  const sql = reportBody(report.sql);
  const { columns, params } = await describeReport(connection, report, sql);

  const path = join(options.outDir, `${report.name}.${EXTENSIONS[options.format]}`);
  // Written to a temporary file next to the target, which then replaces it whole: a reader
  // never sees half a report, and a failed report leaves the previous file alone.
  const temporary = `${path}.${process.pid}.tmp`;
  const select = `SELECT
  ${outputSelectList(columns, options.format, options.redact)}
FROM (
${sql}
) AS report`;

  let rows: number;
  try {
    if (options.format === 'csv') {
      const plan = await csvPlan(connection, select, options);
      rows =
        plan.lines === null
          ? await streamBound(connection, select, pick(values, params), pick(BIND_TYPES, params), (result) => writeCsv(result, temporary, options))
          : await copyCsv(connection, { names: plan.names, lines: plan.lines }, { values: pick(values, params), types: pick(BIND_TYPES, params) }, temporary, options);
    } else {
      const copyOptions = options.format === 'json' ? 'FORMAT json, ARRAY true' : `FORMAT parquet, ${parquetKvMetadata(report)}`;
      ({ count: rows } = await runBound(
        connection,
        `COPY (${select}) TO $${OUTPUT_PATH_PARAM} (${copyOptions})`,
        { ...pick(values, params), [OUTPUT_PATH_PARAM]: temporary },
        { ...pick(BIND_TYPES, params), [OUTPUT_PATH_PARAM]: VARCHAR },
      ));
    }
    renameSync(temporary, path);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw reportError(report, err);
  }
  return { name: report.name, title: report.title, path, rows, columns: columns.map((c) => c.name) };
}

interface CsvPlan {
  names: string[];
  /** the SELECT of each row's CSV line (csvLinesSql) by the types `select` returns; null: CsvWriter writes the rows */
  lines: string | null;
}

async function csvPlan(connection: DuckDBConnection, select: string, options: WriteOptions): Promise<CsvPlan> {
  const prepared = await connection.prepare(select);
  try {
    const columns = Array.from({ length: prepared.columnCount }, (_, i) => {
      const type = prepared.columnType(i);
      return { name: prepared.columnName(i), typeId: type.typeId, alias: type.alias };
    });
    const names = columns.map((c) => c.name);
    // CsvWriter names duplicate columns apart
    if (new Set(names).size !== names.length) return { names, lines: null };
    return { names, lines: csvLinesSql(columns, `(${select}) AS report`, { raw: options.raw }) };
  } finally {
    prepared.destroySync();
  }
}

/**
 * Has DuckDB's COPY write the whole file: the header line as the name of its one column (written
 * as it is), then every row's line (selected by `lines`), with no quote or escape character of its
 * own, the lines already quoted field by field.
 */
async function copyCsv(
  connection: DuckDBConnection,
  { names, lines }: { names: readonly string[]; lines: string },
  bound: { values: Record<string, DuckDBValue>; types: Record<string, DuckDBType> },
  path: string,
  options: WriteOptions,
): Promise<number> {
  // DuckDB ends the header line with a line feed: an excel header keeps its carriage return
  const header = csvHeader(names, { excel: options.excel }).slice(0, -1);
  const lineEnd = options.excel ? ` || chr(13)` : '';
  const { count } = await runBound(
    connection,
    `COPY (SELECT line${lineEnd} AS ${sqlIdent(header)} FROM (${lines})) TO $${OUTPUT_PATH_PARAM} (FORMAT csv, HEADER true, QUOTE '', ESCAPE '')`,
    { ...bound.values, [OUTPUT_PATH_PARAM]: path },
    { ...bound.types, [OUTPUT_PATH_PARAM]: VARCHAR },
  );
  return count;
}

/** Bytes of CSV gathered before each write to the file. */
const CSV_WRITE_BYTES = 64 * 1024;

/** Streams `result` into `path` as CSV; returns the rows written. */
async function writeCsv(result: DuckDBResult, path: string, options: WriteOptions): Promise<number> {
  const columns = result.deduplicatedColumnNames().map((name, i) => ({ name, type: result.columnType(i) }));
  const csv = new CsvWriter(columns, { wall: sessionWallClock(options.tz), raw: options.raw, excel: options.excel });
  const file = await open(path, 'w');
  try {
    let text = csv.header();
    let rows = 0;
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getRows()) text += csv.row(row);
      rows += chunk.rowCount;
      if (text.length >= CSV_WRITE_BYTES) {
        await file.write(text);
        text = '';
      }
    }
    await file.write(text);
    return rows;
  } finally {
    await file.close();
  }
}

/** The report's column names and types and the parameters it uses, without running it. */
export async function describeReport(
  connection: DuckDBConnection,
  report: ReportDefinition,
  sql: string,
): Promise<{ columns: ColumnInfo[]; params: ParamName[] }> {
  let prepared;
  try {
    prepared = await connection.prepare(sql);
  } catch (err) {
    throw reportError(report, err);
  }
  try {
    if (prepared.statementType !== StatementType.SELECT) {
      throw new QueryError(`report ${report.name} (${report.file}) must be one SELECT statement`);
    }
    const params = reportParameters(prepared, `report ${report.name} (${report.file})`);
    const columns: ColumnInfo[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      columns.push({ name: prepared.columnName(i), typeId: type.typeId, alias: type.alias });
    }
    return { columns, params };
  } finally {
    prepared.destroySync();
  }
}

function reportError(report: ReportDefinition, err: unknown): Error {
  if (err instanceof ConvoduckError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new QueryError(`report ${report.name} failed: ${message.split('\n')[0]}`);
}
