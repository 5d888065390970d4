// Report rows in memory, for pages built from the reports (`report --html`): the same SQL files,
// shared relations, bound filters and output formatting as the files `report` writes, so a
// figure on a page is the figure in the CSV. One read-only open serves several filter sets
// (a period and the one before it).

import { DuckDBTypeId, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { registerRedaction, type Redaction } from '../redact/outputs.js';
import { withReadOnlyDatabase, type ReadTarget } from '../store/read-only.js';
import { ConvoduckError, QueryError } from '../shared/errors.js';
import { pick } from './bound.js';
import { loadReports, type ReportDefinition } from './catalog.js';
import { sqlText } from '../store/sql.js';
import { outputSelectList } from './format.js';
import { BIND_TYPES, bindValues, type ParamName, type ReportFilters, type ResolvedParams } from '../filters/params.js';
import { resolveParams } from '../filters/resolve.js';
import { describeReport, selectReports } from './runner.js';
import { createSharedRelations, loadSharedRelations } from './shared-relations.js';
import { reportBody } from './sql-file.js';

/** A cell as `--format json` writes it: numbers (rounded like the CSV), text, booleans, NULL. */
export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export interface ReportRows {
  name: string;
  title: string;
  columns: string[];
  rows: Row[];
}

export interface ReportReaderOptions {
  dbPath: ReadTarget;
  /** where the reports' `.sql` files are; default the package's sql/ */
  sqlDir?: string;
  /** where the shared relations' `.sql` files are; default the package's sql/shared/ */
  sharedSqlDir?: string;
  lockTimeoutMs?: number;
  onWait?: () => void;
  /** --redact: personal data in the redacted columns (src/redact/outputs.ts) replaced */
  redaction?: Redaction | null;
}

export interface ReportReader {
  /** the filters as they are bound (days resolved in --tz, defaults filled in) */
  resolve(filters: ReportFilters): Promise<ResolvedParams>;
  /** runs the named reports over `params`; unknown names are an InvalidInputError */
  read(params: ResolvedParams, names: readonly string[]): Promise<Map<string, ReportRows>>;
  /** the alerts firing after the latest `convoduck alert` run (alert_states), errors first */
  firingAlerts(): Promise<FiringAlert[]>;
}

export interface FiringAlert {
  rule: string;
  /** the group's columns and values */
  labels: Record<string, string | null>;
  level: string;
  value: number | null;
  bound: number | null;
  firing_since: string;
}

/** Opens the database read-only (waiting while a sync holds it) and hands `work` a reader. */
export async function withReportReader<T>(
  options: ReportReaderOptions,
  work: (reader: ReportReader) => Promise<T>,
): Promise<T> {
  const all = loadReports(options.sqlDir);
  const shared = loadSharedRelations(options.sharedSqlDir);
  const read = { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait };
  const redaction = options.redaction ?? null;
  return withReadOnlyDatabase(options.dbPath, read, async (db) => {
    if (redaction) registerRedaction(db.connection, redaction);
    return work({
      resolve: (filters) => resolveParams(db.connection, filters),
      async read(params, names) {
        const reports = selectReports(all, names);
        const values = bindValues(params);
        // as the runner does: a TIMESTAMP without zone (local time in --tz) is read in --tz
        await db.connection.run(`SET TimeZone = ${sqlText(params.tz)}`);
        await createSharedRelations(db.connection, shared, reports, values);
        const result = new Map<string, ReportRows>();
        for (const report of reports) result.set(report.name, await readReport(db.connection, report, values, redaction !== null));
        return result;
      },
      async firingAlerts() {
        // a file of a schema before the alert tables, opened read-only, is not upgraded
        const exists = await db.connection.runAndReadAll(`SELECT 1 FROM duckdb_tables() WHERE table_name = 'alert_states' AND schema_name = 'main'`);
        if (exists.currentRowCount === 0) return [];
        const reader = await db.connection.runAndReadAll(
          `SELECT rule, group_key, level, value, bound, strftime(firing_since AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS since
           FROM alert_states WHERE resolved_at IS NULL ORDER BY level = 'error' DESC, firing_since, rule, group_key`,
        );
        return reader.getRowObjectsJS().map((r) => ({
          rule: String(r.rule),
          labels: JSON.parse(String(r.group_key)) as Record<string, string | null>,
          level: String(r.level),
          value: r.value === null ? null : Number(r.value),
          bound: r.bound === null ? null : Number(r.bound),
          firing_since: String(r.since),
        }));
      },
    });
  });
}

async function readReport(
  connection: DuckDBConnection,
  report: ReportDefinition,
  values: Record<ParamName, DuckDBValue>,
  redact: boolean,
): Promise<ReportRows> {
  const sql = reportBody(report.sql);
  const { columns, params } = await describeReport(connection, report, sql);
  const select = `SELECT\n  ${outputSelectList(columns, 'json', redact)}\nFROM (\n${sql}\n) AS report`;
  try {
    const rows = await runBoundRows(connection, select, pick(values, params), pick(BIND_TYPES, params));
    const numeric = new Set(columns.filter((c) => NUMERIC_TEXT.has(c.typeId)).map((c) => c.name));
    return {
      name: report.name,
      title: report.title,
      columns: columns.map((c) => c.name),
      rows: rows.map((row) => plainRow(row, numeric)),
    };
  } catch (err) {
    if (err instanceof ConvoduckError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new QueryError(`report ${report.name} failed: ${message.split('\n')[0]}`);
  }
}

/** Types DuckDB's JSON rows give as text (to keep their precision) that are numbers in a CSV. */
const NUMERIC_TEXT = new Set<DuckDBTypeId>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
]);

/** A JSON row as cells: counts and decimals as numbers, everything else as DuckDB gives it. */
function plainRow(row: Record<string, unknown>, numeric: ReadonlySet<string>): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (value === null || value === undefined) out[key] = null;
    else if (numeric.has(key)) out[key] = Number(value);
    else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') out[key] = value;
    else out[key] = JSON.stringify(value);
  }
  return out;
}

/** Runs `sql` bound exactly `values` (the parameters it uses) and returns its rows. */
async function runBoundRows(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
): Promise<Record<string, unknown>[]> {
  const prepared = await connection.prepare(sql);
  try {
    prepared.bind(values, types);
    return (await prepared.runAndReadAll()).getRowObjectsJson();
  } finally {
    prepared.destroySync();
  }
}
