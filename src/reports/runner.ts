// Runs reports: opens the database read-only, builds the filtered base relations with bound
// parameters, and has DuckDB's COPY write each report through a generic formatting SELECT.

import { StatementType, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CliError, EXIT, UsageError } from '../cli/errors.js';
import { Database } from '../store/database.js';
import { BASE_SQL } from './base.js';
import { loadReports, type ReportDefinition } from './catalog.js';
import { outputSelectList, type ColumnInfo, type OutputFormat } from './format.js';
import {
  BIND_TYPES,
  DEFAULT_EARLY_SECONDS,
  DEFAULT_MIN_SAMPLE,
  PARAM_NAMES,
  bindValues,
  type ParamName,
  type ReportFilters,
  type ResolvedParams,
  type TimeBound,
} from './params.js';

export interface RunReportsOptions {
  dbPath: string;
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
  /** where the `.sql` files are; default the package's sql/ */
  sqlDir?: string;
  lockTimeoutMs?: number;
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

/** Picks reports by name, in the order asked (duplicates once); unknown names are a UsageError. */
export function selectReports(all: readonly ReportDefinition[], names: readonly string[] = []): ReportDefinition[] {
  if (names.length === 0) return [...all];
  const byName = new Map(all.map((r) => [r.name, r]));
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    throw new UsageError(
      `unknown report ${unknown.map((n) => JSON.stringify(n)).join(', ')}: available reports are ${all.map((r) => r.name).join(', ')}`,
    );
  }
  return [...new Set(names)].map((n) => byName.get(n)!);
}

export async function runReports(options: RunReportsOptions): Promise<ReportResult[]> {
  const format = options.format ?? 'csv';
  if (options.excel && format !== 'csv') throw new UsageError('--excel only applies to --format csv');
  const reports = selectReports(loadReports(options.sqlDir), options.names);

  const db = await Database.open(options.dbPath, { readOnly: true, lockTimeoutMs: options.lockTimeoutMs ?? 30_000 });
  try {
    const params = await resolveParams(db.connection, options.filters ?? {});
    const values = bindValues(params);
    for (const statement of BASE_SQL) await runBound(db.connection, statement, values, BIND_TYPES);

    mkdirSync(options.outDir, { recursive: true });
    const results: ReportResult[] = [];
    for (const report of reports) {
      const result = await writeReport(db.connection, report, values, {
        outDir: options.outDir,
        format,
        neutralise: !options.raw,
        excel: options.excel ?? false,
      });
      results.push(result);
      options.onReport?.(result);
    }
    return results;
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// parameters

/** The time zone's canonical IANA name (case-insensitive match), or a UsageError. */
export async function resolveTimeZone(connection: DuckDBConnection, tz: string): Promise<string> {
  const reader = await connection.runAndReadAll(
    `SELECT name FROM pg_timezone_names() WHERE lower(name) = lower($tz) ORDER BY (name = $tz) DESC, name LIMIT 1`,
    { tz },
    { tz: VARCHAR },
  );
  const name = reader.getRowObjectsJS()[0]?.name;
  if (typeof name !== 'string') {
    throw new UsageError(
      `--tz ${JSON.stringify(tz)} is not a known time zone: use an IANA name such as UTC, Europe/Berlin or America/New_York`,
    );
  }
  return name;
}

async function resolveParams(connection: DuckDBConnection, filters: ReportFilters): Promise<ResolvedParams> {
  const tz = await resolveTimeZone(connection, filters.tz ?? 'UTC');
  const from = filters.from ? await resolveBound(connection, filters.from, tz) : null;
  const to = filters.to ? await resolveBound(connection, filters.to, tz) : null;
  if (from && to && from.getTime() >= to.getTime()) {
    throw new UsageError(
      `--from (${from.toISOString()}) must be before --to (${to.toISOString()}): --from is inclusive, --to exclusive`,
    );
  }
  const agents = filters.agents && filters.agents.length > 0 ? [...new Set(filters.agents)] : null;
  return {
    from,
    to,
    agents,
    channel: filters.channel ?? null,
    tz,
    earlySeconds: filters.earlySeconds ?? DEFAULT_EARLY_SECONDS,
    minSample: filters.minSample ?? DEFAULT_MIN_SAMPLE,
  };
}

/** A calendar day becomes midnight in `tz` (DuckDB's ICU does the zone arithmetic). */
async function resolveBound(connection: DuckDBConnection, bound: TimeBound, tz: string): Promise<Date> {
  if ('instant' in bound) return bound.instant;
  const sql =
    'localDate' in bound
      ? `SELECT epoch_ms(timezone($tz, $day::DATE::TIMESTAMP)) AS ms`
      : `SELECT epoch_ms(timezone($tz, (timezone($tz, $now::TIMESTAMPTZ)::DATE - $days::INTEGER)::TIMESTAMP)) AS ms`;
  const values: Record<string, DuckDBValue> =
    'localDate' in bound
      ? { tz, day: bound.localDate }
      : { tz, now: bound.now.toISOString(), days: bound.localDaysAgo };
  const reader = await connection.runAndReadAll(sql, values);
  return new Date(Number(reader.getRowObjectsJS()[0]!.ms));
}

/** Runs one statement, binding only the parameters it uses (DuckDB rejects extra ones). */
async function runBound(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
): Promise<{ count: number }> {
  const prepared = await connection.prepare(sql);
  try {
    const used = parameterNames(prepared);
    prepared.bind(pick(values, used), pick(types, used));
    const reader = await prepared.runAndReadAll();
    const first = reader.getRowObjectsJS()[0];
    return { count: first && 'Count' in first ? Number(first.Count) : 0 };
  } finally {
    prepared.destroySync();
  }
}

function parameterNames(prepared: { parameterCount: number; parameterName(i: number): string }): string[] {
  const names: string[] = [];
  for (let i = 1; i <= prepared.parameterCount; i++) names.push(prepared.parameterName(i));
  return names;
}

function pick<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(keys.map((k) => [k, record[k] as T]));
}

// ---------------------------------------------------------------------------------------------
// writing

interface WriteOptions {
  outDir: string;
  format: OutputFormat;
  neutralise: boolean;
  excel: boolean;
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
  // DuckDB writes a temporary file next to the target, which then replaces it whole: a reader
  // never sees half a report, and a failed report leaves the previous file alone.
  const temporary = `${path}.${process.pid}.tmp`;
  const copyOptions =
    options.format === 'csv'
      ? `FORMAT csv, HEADER${options.excel ? `, NEW_LINE '\r\n'` : ''}`
      : options.format === 'json'
        ? 'FORMAT json, ARRAY true'
        : 'FORMAT parquet';
  const copy = `COPY (
SELECT
  ${outputSelectList(columns, options.format, { neutralise: options.neutralise })}
FROM (
${sql}
) AS report
) TO $${OUTPUT_PATH_PARAM} (${copyOptions})`;

  let rows: number;
  try {
    ({ count: rows } = await runBound(
      connection,
      copy,
      { ...pick(values, params), [OUTPUT_PATH_PARAM]: temporary },
      { ...pick(BIND_TYPES, params), [OUTPUT_PATH_PARAM]: VARCHAR },
    ));
    if (options.excel) {
      // DuckDB's COPY has no byte-order-mark option (its PREFIX cannot be combined with HEADER),
      // so the BOM is the one thing added after DuckDB wrote the file.
      await prependBom(temporary, path);
      rmSync(temporary, { force: true });
    } else {
      renameSync(temporary, path);
    }
  } catch (err) {
    rmSync(temporary, { force: true });
    throw reportError(report, err);
  }
  return { name: report.name, title: report.title, path, rows, columns: columns.map((c) => c.name) };
}

/** The report's column names and types and the parameters it uses, without running it. */
async function describeReport(
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
      throw new CliError(`report ${report.name} (${report.file}) must be one SELECT statement`, EXIT.failed);
    }
    const params = parameterNames(prepared);
    const unknown = params.filter((p) => !(PARAM_NAMES as readonly string[]).includes(p));
    if (unknown.length > 0) {
      throw new CliError(
        `report ${report.name} (${report.file}) uses unknown parameter ${unknown.map((p) => `$${p}`).join(', ')}: ` +
          `available are ${PARAM_NAMES.map((p) => `$${p}`).join(', ')}`,
        EXIT.failed,
      );
    }
    const columns: ColumnInfo[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      columns.push({ name: prepared.columnName(i), typeId: type.typeId, alias: type.alias });
    }
    return { columns, params: params as ParamName[] };
  } finally {
    prepared.destroySync();
  }
}

/** The report's SQL ready to be a subquery: without trailing comments and semicolons. */
export function reportBody(sql: string): string {
  const lines = sql.replace(/^\uFEFF/, '').split(/\r?\n/);
  while (lines.length > 0 && /^\s*(--.*)?$/.test(lines[lines.length - 1]!)) lines.pop();
  return lines.join('\n').replace(/;\s*(--[^\n]*)?$/, '');
}

async function prependBom(source: string, target: string): Promise<void> {
  const withBom = `${source}.bom`;
  try {
    const out = createWriteStream(withBom);
    out.write('\uFEFF');
    await pipeline(createReadStream(source), out);
    renameSync(withBom, target);
  } finally {
    rmSync(withBom, { force: true });
  }
}

function reportError(report: ReportDefinition, err: unknown): Error {
  if (err instanceof CliError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(`report ${report.name} failed: ${message.split('\n')[0]}`, EXIT.failed);
}
