// The values freshness rules read: per space and period end, the hours since its last
// conversation started (or its last successful sync ended), for many period ends in one query,
// so that a backtest over 720 hours costs one scan, and a live run computes its one period the
// same way.

import type { DuckDBConnection } from '@duckdb/node-api';

export interface FreshnessValue {
  space: string;
  /** the period end it is measured at (epoch ms) */
  end: number;
  /** hours from the last conversation (or successful sync) to the end; null if none ever */
  hours: number | null;
  /** conversations in the 7 days before the end (conversations); successful runs ever (sync) */
  recent: number;
}

/**
 * Per space and end, the hours from its last conversation started before the end. The running
 * count per space (ties counted together) read at the end and 7 days before gives the week's
 * conversations without a join of every end with every conversation.
 */
export async function conversationFreshness(connection: DuckDBConnection, ends: readonly Date[]): Promise<FreshnessValue[]> {
  return read(
    connection,
    `WITH c AS (
       SELECT space, started_at, count(*) OVER (PARTITION BY space ORDER BY started_at RANGE UNBOUNDED PRECEDING) AS upto
       FROM conversations WHERE space IS NOT NULL AND isfinite(started_at)),
     e AS (
       SELECT s.space, x.period_end, x.period_end - INTERVAL 7 DAY AS week_before
       FROM (SELECT DISTINCT space FROM c) s,
            (SELECT unnest(from_json(?::JSON, '["VARCHAR"]'))::TIMESTAMPTZ AS period_end) x)
     SELECT e.space, epoch_ms(e.period_end) AS period_end,
            (epoch(e.period_end) - epoch(last.started_at)) / 3600.0 AS hours,
            (last.upto - coalesce(before.upto, 0))::INTEGER AS recent
     FROM e
     ASOF JOIN c last ON e.space = last.space AND e.period_end > last.started_at
     ASOF LEFT JOIN c before ON e.space = before.space AND e.week_before > before.started_at
     ORDER BY e.space, e.period_end`,
    ends,
  );
}

/** Per space and end, the hours from its last successful sync run that ended before the end (else its first run's start). */
export async function syncFreshness(connection: DuckDBConnection, ends: readonly Date[]): Promise<FreshnessValue[]> {
  return read(
    connection,
    `SELECT r.space, epoch_ms(x.period_end) AS period_end,
            (epoch(x.period_end) - epoch(coalesce(max(r.ended_at) FILTER (WHERE r.status = 'ok'), min(r.started_at)))) / 3600.0 AS hours,
            count(*) FILTER (WHERE r.status = 'ok')::INTEGER AS recent
     FROM (SELECT unnest(from_json(?::JSON, '["VARCHAR"]'))::TIMESTAMPTZ AS period_end) x
     JOIN sync_runs r ON r.started_at < x.period_end AND (r.ended_at IS NULL OR r.ended_at < x.period_end)
     WHERE r.space IS NOT NULL
     GROUP BY r.space, x.period_end ORDER BY r.space, x.period_end`,
    ends,
  );
}

async function read(connection: DuckDBConnection, sql: string, ends: readonly Date[]): Promise<FreshnessValue[]> {
  if (ends.length === 0) return [];
  const reader = await connection.runAndReadAll(sql, [JSON.stringify(ends.map((d) => d.toISOString()))]);
  return reader.getRowObjectsJS().map((r) => ({
    space: String(r.space),
    end: Number(r.period_end),
    hours: r.hours === null ? null : Number(r.hours),
    recent: Number(r.recent),
  }));
}
