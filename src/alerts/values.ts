// The values rules read, computed from the stored conversations: a report run over one period's
// window (its shared relations created for that window, as `report --since --until` does), read per
// group; and the hours since the last conversation or successful sync at a period's end.

import type { DuckDBConnection } from '@duckdb/node-api';
import { pick, reportParameters } from '../reports/bound.js';
import type { ReportDefinition } from '../reports/catalog.js';
import { BIND_TYPES, bindValues } from '../filters/params.js';
import { resolveParams } from '../filters/resolve.js';
import { createSharedRelations, type SharedRelation } from '../reports/shared-relations.js';
import { reportBody } from '../reports/sql-file.js';
import { QueryError } from '../shared/errors.js';
import type { Window } from './periods.js';
import type { ReportRule } from './rules.js';

export type ReportRow = Record<string, unknown>;

/** One group's labels: the rule's group columns and their values as text (null kept). */
export type GroupLabels = Record<string, string | null>;

export interface GroupValue {
  labels: GroupLabels;
  value: number | null;
  volume: number | null;
}

/** Rows of the reports per window, each window's relations created once for all its reports. */
export class ReportRows {
  private readonly cache = new Map<string, Map<string, ReportRow[]>>();

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly shared: readonly SharedRelation[],
    private readonly reports: ReadonlyMap<string, ReportDefinition>,
  ) {}

  /** The rows of `reportNames` (run together) over `window`; `report` is read from them. */
  async rows(report: string, window: Window, reportNames: readonly string[]): Promise<ReportRow[]> {
    const key = `${window.start.toISOString()}/${window.end.toISOString()}`;
    let byReport = this.cache.get(key);
    if (!byReport?.has(report)) {
      byReport = await this.run(window, [...new Set([report, ...reportNames])]);
      this.cache.set(key, byReport);
    }
    return byReport.get(report)!;
  }

  private async run(window: Window, names: readonly string[]): Promise<Map<string, ReportRow[]>> {
    const reports = names.map((n) => this.reports.get(n)!);
    const params = await resolveParams(this.connection, { from: { instant: window.start }, to: { instant: window.end }, tz: 'UTC' });
    const values = bindValues(params);
    await createSharedRelations(this.connection, this.shared, reports, values);
    const out = new Map<string, ReportRow[]>();
    for (const report of reports) {
      const prepared = await this.connection.prepare(reportBody(report.sql));
      try {
        const used = reportParameters(prepared, `report ${report.name} (${report.file})`);
        prepared.bind(pick(values, used), pick(BIND_TYPES, used));
        out.set(report.name, (await prepared.runAndReadAll()).getRowObjectsJS() as ReportRow[]);
      } catch (err) {
        if (err instanceof QueryError) throw err;
        throw new QueryError(`report ${report.name} failed for an alert rule: ${String((err as Error).message ?? err).split('\n')[0]}`);
      } finally {
        prepared.destroySync();
      }
    }
    return out;
  }
}

/** The rule's value per group in `rows`: the rows that pass `where`, aggregated per group. */
export function groupValues(rule: ReportRule, rows: readonly ReportRow[]): Map<string, GroupValue> {
  const groups = new Map<string, { labels: GroupLabels; values: number[]; volumes: number[] }>();
  for (const row of rows) {
    if (!Object.entries(rule.where).every(([k, v]) => String(row[k]) === String(v))) continue;
    const labels: GroupLabels = Object.fromEntries(rule.group.map((g) => [g, row[g] === null || row[g] === undefined ? null : String(row[g])]));
    const key = groupKey(labels);
    const entry = groups.get(key) ?? { labels, values: [], volumes: [] };
    const value = toNumber(row[rule.column]);
    if (value !== null) entry.values.push(value);
    if (rule.volumeColumn) {
      const volume = toNumber(row[rule.volumeColumn]);
      if (volume !== null) entry.volumes.push(volume);
    }
    groups.set(key, entry);
  }
  const out = new Map<string, GroupValue>();
  for (const [key, g] of groups) {
    out.set(key, {
      labels: g.labels,
      value: aggregate(rule.aggregate, g.values),
      volume: rule.volumeColumn ? aggregate(rule.aggregate === 'sum' ? 'sum' : 'max', g.volumes) ?? 0 : null,
    });
  }
  return out;
}

/** A group's identity: its labels as JSON, in the rule's group order. */
export function groupKey(labels: GroupLabels): string {
  return JSON.stringify(labels);
}

function aggregate(how: ReportRule['aggregate'], values: readonly number[]): number | null {
  if (values.length === 0) return null;
  if (how === 'sum') return values.reduce((s, v) => s + v, 0);
  if (how === 'max') return Math.max(...values);
  if (how === 'min') return Math.min(...values);
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function toNumber(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** The instants the stored history spans: its first conversation, and the later of its last conversation and its last successful sync. */
export interface StoredSpan {
  first: number;
  until: number;
}

/**
 * The span of the stored history: a period inside it that holds no row of a group holds none of its
 * conversations. Sync runs are timed on this machine's clock: `serverClockAheadMs` puts them on the server's.
 */
export async function storedSpan(connection: DuckDBConnection, serverClockAheadMs = 0): Promise<StoredSpan> {
  const reader = await connection.runAndReadAll(
    `SELECT epoch_ms(min(started_at)) AS first,
            greatest(epoch_ms(max(started_at)), (SELECT epoch_ms(max(ended_at)) FROM sync_runs WHERE status = 'ok') + ${Math.round(serverClockAheadMs)}) AS until
     FROM conversations WHERE isfinite(started_at)`,
  );
  const row = reader.getRowObjectsJS()[0] ?? {};
  const ms = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return { first: ms(row.first) ?? Infinity, until: ms(row.until) ?? -Infinity };
}
