// The read model of `convoduck status`: one named query per thing it shows, each reading the
// database as it is (every run, count and gap is a row; nothing is parsed out of a message).

import type { Database } from '../store/database.js';
import { MISSING_DETAIL } from '../store/pending-details.js';
import { PUBLIC_TABLES } from '../store/schema.js';
import { storedSpaces } from '../store/space-scope.js';
import { formatInstant, isoUtcSql } from '../shared/time.js';
import type { ErrorGroup, RunStatus, SpaceStatus, StatusReport } from './report.js';

/** `expr` (a TIMESTAMPTZ) printed by DuckDB as every text output prints an instant, AS `name`. */
function text(expr: string, name = `${expr}_text`): string {
  return `${isoUtcSql(expr)} AS ${name}`;
}

function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return formatInstant(value);
  return String(value);
}

function num(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** Rows of every public table. */
export async function tableCounts(db: Database): Promise<StatusReport['tables']> {
  const countsSql = PUBLIC_TABLES.map((t) => `(SELECT count(*) FROM ${t})::BIGINT AS ${t}`).join(', ');
  const counts = (await db.one(`SELECT ${countsSql}`)) ?? {};
  return Object.fromEntries(PUBLIC_TABLES.map((t) => [t, num(counts[t])])) as StatusReport['tables'];
}

export async function schemaVersion(db: Database): Promise<number | null> {
  const row = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
  return row ? Number(row.value) : null;
}

/**
 * The runs a live sync may still be writing: only while a sync holds the lock, and of each space
 * only its newest run (a sync crawls each space once; an older run left `running` was killed).
 */
export async function liveRunIds(db: Database, syncRunning: boolean): Promise<Set<number>> {
  if (!syncRunning) return new Set();
  const rows = await db.all(
    `SELECT run_id, status FROM sync_runs
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1`,
  );
  return new Set(rows.filter((r) => r.status === 'running').map((r) => num(r.run_id)));
}

/** The newest `limit` runs, newest first; a `running` run no live sync writes is stale. */
export async function recentRuns(db: Database, limit: number, now: Date, live: Set<number>): Promise<RunStatus[]> {
  const rows = await db.all(
    `SELECT run_id, ${text('started_at')}, ${text('ended_at')}, status, space, ${text('window_from')}, ${text('window_to')},
            requests, throttled, retries,
            conversations_listed, details_fetched, errors, message, clock_skew_seconds, ${text('newest_started_at')},
            ${text('restored_from_copy_at')}, damaged_file_kept_as,
            date_diff('millisecond', started_at, coalesce(ended_at, ?::TIMESTAMPTZ)) / 1000.0 AS duration_sec
     FROM sync_runs ORDER BY run_id DESC LIMIT ?`,
    [now.toISOString(), limit],
  );
  return rows.map((r) => {
    const running = r.status === 'running';
    return {
      runId: num(r.run_id),
      startedAt: iso(r.started_at_text) ?? '',
      endedAt: iso(r.ended_at_text),
      status: String(r.status),
      stale: running && !live.has(num(r.run_id)),
      space: (r.space as string | null) ?? null,
      windowFrom: iso(r.window_from_text),
      windowTo: iso(r.window_to_text),
      durationSec: r.ended_at === null && !running ? null : Math.round(num(r.duration_sec) * 10) / 10,
      requests: num(r.requests),
      throttled: num(r.throttled),
      retries: num(r.retries),
      conversationsListed: num(r.conversations_listed),
      detailsFetched: num(r.details_fetched),
      errors: num(r.errors),
      message: (r.message as string | null) ?? null,
      clockSkewSeconds: r.clock_skew_seconds === null || r.clock_skew_seconds === undefined ? null : Number(r.clock_skew_seconds),
      newestStartedAt: iso(r.newest_started_at_text),
      restoredFromCopyAt: iso(r.restored_from_copy_at_text),
      damagedFileKeptAs: (r.damaged_file_kept_as as string | null) ?? null,
    };
  });
}

/** Listed conversations against their details: stored, missing, set aside, failing, pending. */
export async function detailCoverage(db: Database): Promise<StatusReport['details']> {
  const d =
    (await db.one(
      `WITH usable AS (SELECT id FROM raw_conversations WHERE invalid_reason IS NULL),
          errored AS (SELECT DISTINCT conversation_id AS id FROM sync_errors WHERE conversation_id IS NOT NULL)
     SELECT
       (SELECT count(*) FROM raw_listed_conversations)::BIGINT AS listed,
       (SELECT count(*) FROM usable)::BIGINT AS stored,
       (SELECT count(*) FROM raw_listed_conversations l
          WHERE l.id NOT IN (SELECT id FROM raw_conversations) AND l.id NOT IN (SELECT id FROM deleted_conversations))::BIGINT AS missing,
       (SELECT count(*) FROM raw_conversations WHERE detail_state = 'set_aside')::BIGINT AS set_aside,
       (SELECT count(*) FROM raw_conversations WHERE detail_state = 'coerced')::BIGINT AS coerced,
       (SELECT count(*) FROM deleted_conversations)::BIGINT AS deleted,
       (SELECT count(*) FROM errored WHERE id NOT IN (SELECT id FROM usable))::BIGINT AS failing,
       -- pending as sync counts it (store/pending-details.ts); a detail not final yet is open, apart
       (SELECT count(*) FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
          LEFT JOIN deleted_conversations x USING (id)
          WHERE ${MISSING_DETAIL})::BIGINT AS pending`,
    )) ?? {};
  const listed = num(d.listed);
  const stored = num(d.stored);
  return {
    listed,
    stored,
    missing: num(d.missing),
    setAside: num(d.set_aside),
    coerced: num(d.coerced),
    deleted: num(d.deleted),
    failing: num(d.failing),
    pending: num(d.pending),
    coverage: listed > 0 ? stored / listed : null,
  };
}

/** Conversations not finished yet: how many, the oldest, and how many started over a day ago. */
export async function openConversations(db: Database, now: Date): Promise<StatusReport['openConversations']> {
  const open =
    (await db.one(
      `SELECT count(*)::BIGINT AS n, ${text('min(started_at)', 'oldest')},
            count(*) FILTER (WHERE started_at < ?::TIMESTAMPTZ - INTERVAL 24 HOUR)::BIGINT AS old
     FROM conversations WHERE NOT coalesce(is_final, false)`,
      [now.toISOString()],
    )) ?? {};
  return { count: num(open.n), oldestStartedAt: iso(open.oldest), olderThan24h: num(open.old) };
}

export async function newestConversationAt(db: Database): Promise<string | null> {
  return iso((await db.one(`SELECT ${text('max(started_at)', 'newest')} FROM conversations`))?.newest);
}

/** Errors recorded since run `fromRunId`, grouped by stage and HTTP status, most frequent first. */
export async function errorGroups(db: Database, fromRunId: number | null): Promise<ErrorGroup[]> {
  if (fromRunId === null) return [];
  const groups = await db.all(
    `SELECT stage, http_status, count(*)::BIGINT AS n, count(DISTINCT conversation_id)::BIGINT AS conversations,
            ${text('max(occurred_at)', 'last_at')}, arg_max(message, occurred_at) AS last_message
     FROM sync_errors WHERE run_id >= ?
     GROUP BY stage, http_status ORDER BY n DESC, stage, http_status NULLS LAST`,
    [fromRunId],
  );
  return groups.map((g) => ({
    stage: String(g.stage),
    httpStatus: g.http_status === null || g.http_status === undefined ? null : num(g.http_status),
    count: num(g.n),
    conversations: num(g.conversations),
    lastAt: iso(g.last_at) ?? '',
    lastMessage: String(g.last_message ?? ''),
  }));
}

/** Each space's watermark, newest run and detail counts. */
export async function spaceStatuses(db: Database, watermarks: Map<string, Date>, live: Set<number>): Promise<SpaceStatus[]> {
  const runs = await db.all(
    `SELECT space, run_id, status, ${text('started_at')}, ${text('ended_at')}
     FROM sync_runs WHERE space IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1`,
  );
  const details = await db.all(
    `SELECT l.space, count(*)::BIGINT AS listed,
            count(*) FILTER (WHERE d.id IS NOT NULL AND d.invalid_reason IS NULL)::BIGINT AS stored,
            count(*) FILTER (WHERE ${MISSING_DETAIL})::BIGINT AS pending,
            count(*) FILTER (WHERE x.id IS NULL AND d.id IS NOT NULL AND d.invalid_reason IS NULL AND NOT coalesce(d.is_final, false))::BIGINT AS open
     FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
     LEFT JOIN deleted_conversations x USING (id)
     GROUP BY l.space`,
  );
  return (await storedSpaces(db)).map((space) => {
    const run = runs.find((r) => r.space === space);
    const d = details.find((r) => r.space === space) ?? {};
    const mark = watermarks.get(space);
    return {
      space,
      watermark: mark ? formatInstant(mark) : null,
      lastRun: run
        ? {
            runId: num(run.run_id),
            status: String(run.status),
            stale: run.status === 'running' && !live.has(num(run.run_id)),
            startedAt: iso(run.started_at_text) ?? '',
            endedAt: iso(run.ended_at_text),
          }
        : null,
      listed: num(d.listed),
      stored: num(d.stored),
      pending: num(d.pending),
      open: num(d.open),
    };
  });
}
