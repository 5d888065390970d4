// A run's bookkeeping: its sync_runs row (started, its counters as they grow, how it ended) and
// the errors it met (sync_errors), each a row the status command and reports read back as data.

import type { Database } from './database.js';
import { stage } from './batch-sql.js';

export interface SyncErrorRecord {
  stage: string;
  conversationId: string | null;
  httpStatus: number | null;
  message: string;
  occurredAt: Date;
}

export async function insertErrors(db: Database, runId: number, errors: SyncErrorRecord[]): Promise<void> {
  if (errors.length === 0) return;
  await stage(
    db,
    '_errors',
    ['occurred_at', 'stage', 'conversation_id', 'http_status', 'message'],
    errors.map((e) => [
      e.occurredAt.toISOString(),
      e.stage,
      e.conversationId,
      e.httpStatus === null ? null : String(e.httpStatus),
      e.message,
    ]),
  );
  await db.run(
    `INSERT INTO sync_errors
     SELECT ?, occurred_at::TIMESTAMPTZ, stage, conversation_id, http_status::INTEGER, message FROM _errors`,
    [runId],
  );
}

export async function recordErrors(db: Database, runId: number, errors: SyncErrorRecord[]): Promise<void> {
  await db.transaction(() => insertErrors(db, runId, errors));
}

export interface RunCounters {
  requests: number;
  throttled: number;
  retries: number;
  conversationsListed: number;
  detailsFetched: number;
  /** details stored with some value coerced (counted in detailsFetched too) */
  detailsCoerced: number;
  /** details set aside: kept raw, not stored as rows */
  detailsSetAside: number;
  /** conversations found deleted at the source */
  conversationsDeleted: number;
  errors: number;
}

export async function startRun(
  db: Database,
  startedAt: Date,
  space: string,
  windowFrom: Date | null,
  windowTo: Date,
  restored: { copyTakenAt: Date; damagedPath: string } | null = null,
): Promise<number> {
  const row = await db.one<{ run_id: number }>(
    `INSERT INTO sync_runs (run_id, started_at, status, space, window_from, window_to, restored_from_copy_at, damaged_file_kept_as)
     VALUES (nextval('sync_run_ids'), ?::TIMESTAMPTZ, 'running', ?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, ?)
     RETURNING run_id`,
    [startedAt.toISOString(), space, windowFrom?.toISOString() ?? null, windowTo.toISOString(), restored?.copyTakenAt.toISOString() ?? null, restored?.damagedPath ?? null],
  );
  return Number(row!.run_id);
}

/**
 * The run's window end once its first page pinned it, how far the server's clock was from this
 * machine's (seconds; null without a Date header) and the newest started_at it sent.
 */
export async function recordRunClock(
  db: Database,
  runId: number,
  clock: { windowTo: Date; clockSkewSeconds: number | null; newestStartedAt: string | null },
): Promise<void> {
  await db.run(`UPDATE sync_runs SET window_to = ?::TIMESTAMPTZ, clock_skew_seconds = ?, newest_started_at = ?::TIMESTAMPTZ WHERE run_id = ?`, [
    clock.windowTo.toISOString(),
    clock.clockSkewSeconds,
    clock.newestStartedAt,
    runId,
  ]);
}

/** The run's counters so far, into its sync_runs row. */
export async function updateRun(db: Database, runId: number, c: RunCounters): Promise<void> {
  await db.run(
    `UPDATE sync_runs SET requests = ?, throttled = ?, retries = ?, conversations_listed = ?,
       details_fetched = ?, details_coerced = ?, details_set_aside = ?, conversations_deleted = ?, errors = ? WHERE run_id = ?`,
    [c.requests, c.throttled, c.retries, c.conversationsListed, c.detailsFetched, c.detailsCoerced, c.detailsSetAside, c.conversationsDeleted, c.errors, runId],
  );
}

export async function finishRun(
  db: Database,
  runId: number,
  endedAt: Date,
  status: 'ok' | 'errors' | 'failed' | 'interrupted',
  counters: RunCounters,
  message: string | null,
): Promise<void> {
  await db.transaction(async () => {
    await updateRun(db, runId, counters);
    await db.run(`UPDATE sync_runs SET ended_at = ?::TIMESTAMPTZ, status = ?, message = ? WHERE run_id = ?`, [
      endedAt.toISOString(),
      status,
      message,
      runId,
    ]);
  });
}

/** How far the server's clock ran ahead of this machine's in the latest run that read it (negative: behind), in ms; 0 when none did. */
export async function latestClockSkewMs(db: Database): Promise<number> {
  const row = await db.one<{ skew: number | null }>(
    `SELECT clock_skew_seconds AS skew FROM sync_runs WHERE clock_skew_seconds IS NOT NULL ORDER BY started_at DESC, run_id DESC LIMIT 1`,
  );
  return row?.skew === null || row?.skew === undefined ? 0 : Math.round(Number(row.skew) * 1000);
}
