// `convoduck status`: what the database holds and how the crawl is doing, read from the
// database itself: recent runs, the watermark, row counts, detail coverage, conversations
// still open, and recorded errors grouped by stage and HTTP status.

import { statSync } from 'node:fs';
import { syncLockHolder } from '../store/sync-lock.js';
import type { Database } from '../store/database.js';
import { PUBLIC_TABLES } from '../store/schema.js';
import { limitToSpaces, storedSpaces } from '../store/space-scope.js';
import {
  combineShortWindows,
  DEFAULT_OVERLAP_MS,
  getWatermark,
  listWatermarks,
  NEEDS_DETAIL,
  openListingGaps,
  type ListingGap,
} from '../store/state.js';
import { formatInstant, isoUtcSql } from '../shared/time.js';
import { withReadOnlyDatabase, type ReadOptions } from '../store/read-only.js';

export interface RunStatus {
  runId: number;
  startedAt: string;
  endedAt: string | null;
  /** as recorded: running, ok, errors, failed, interrupted */
  status: string;
  /** status `running` but no sync process holds the database: the run was killed */
  stale: boolean;
  space: string | null;
  windowFrom: string | null;
  windowTo: string | null;
  durationSec: number | null;
  requests: number;
  throttled: number;
  retries: number;
  conversationsListed: number;
  detailsFetched: number;
  errors: number;
  message: string | null;
}

export interface ErrorGroup {
  stage: string;
  httpStatus: number | null;
  count: number;
  conversations: number;
  lastAt: string;
  lastMessage: string;
}

/** Conversations a run's listing found counted but not served, that no later run has listed again. */
export interface ListingGapStatus {
  /** the run that found the gap */
  runId: number;
  /** span of the run's short windows (null: from the beginning of history) */
  from: string | null;
  to: string;
  /** counted by the server minus served, over those windows */
  missing: number;
  counted: number;
  served: number;
  /** short windows the span covers */
  windows: number;
  /** whether a plain `convoduck sync` (default --overlap) lists the span again */
  nextSyncRelists: boolean;
}

/** One space of the database: how far its listing got, its last run, what it still has to fetch. */
export interface SpaceStatus {
  space: string;
  /** conversations of the space started before this were all listed (null before its first full listing) */
  watermark: string | null;
  lastRun: { runId: number; status: string; stale: boolean; startedAt: string; endedAt: string | null } | null;
  listed: number;
  stored: number;
  /** what the next sync fetches for this space (as details.pending) */
  pending: number;
}

export interface StatusReport {
  database: { path: string; sizeBytes: number; schemaVersion: number | null };
  /** the spaces shown (every space of the database, or those of --space), by slug */
  spaces: SpaceStatus[];
  /** a sync process currently holding the sync lock, or null */
  syncRunning: { pid: number } | null;
  /** conversations started before this were all listed, in every space shown (null before the first full listing) */
  watermark: string | null;
  /** windows whose listing did not add up, per run, until a later run lists them again */
  listingGaps: ListingGapStatus[];
  runs: RunStatus[];
  tables: Record<(typeof PUBLIC_TABLES)[number], number>;
  details: {
    /** conversations the list endpoint returned */
    listed: number;
    /** usable detail bodies stored */
    stored: number;
    /** listed, never fetched */
    missing: number;
    /** fetched, but set aside: the body cannot be stored as rows (raw body kept, reason in raw_conversations.invalid_reason) */
    setAside: number;
    /** stored, some values coerced by a documented rule */
    coerced: number;
    /** deleted at the source (a 404, or missing from a window listed again); never fetched again */
    deleted: number;
    /** without a usable detail and with a recorded error */
    failing: number;
    /** what the next sync fetches: missing, set aside whose list entry changed, and details of unfinished conversations */
    pending: number;
    /** stored / listed (null when nothing is listed) */
    coverage: number | null;
  };
  openConversations: { count: number; oldestStartedAt: string | null; olderThan24h: number };
  newestConversationAt: string | null;
  errors: {
    total: number;
    /** errors of the runs in `runs`, grouped */
    recent: ErrorGroup[];
  };
}

export interface StatusOptions extends ReadOptions {
  /** how many runs to show (default 5) */
  runs?: number;
  /** only these spaces (every table read as if the database held only their rows) */
  spaces?: readonly string[];
  now?: () => Date;
}

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

/** The pid in `<db>.sync-lock`, when that process is alive. */
function runningSync(dbPath: string): { pid: number } | null {
  const pid = syncLockHolder(dbPath);
  return pid === null ? null : { pid };
}

export async function readStatus(db: Database, dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  const now = options.now?.() ?? new Date();
  const runLimit = options.runs ?? 5;
  const sync = runningSync(dbPath);
  await limitToSpaces(db, options.spaces ?? []);

  const countsSql = PUBLIC_TABLES.map((t) => `(SELECT count(*) FROM ${t})::BIGINT AS ${t}`).join(', ');
  const counts = (await db.one(`SELECT ${countsSql}`)) ?? {};
  const tables = Object.fromEntries(PUBLIC_TABLES.map((t) => [t, num(counts[t])])) as StatusReport['tables'];

  const schema = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
  const watermark = await getWatermark(db);
  const watermarks = await listWatermarks(db);
  const listingGaps = gapsByRun(await openListingGaps(db), (space) => (space === null ? watermark : (watermarks.get(space) ?? null)));

  const runRows = await db.all(
    `SELECT run_id, ${text('started_at')}, ${text('ended_at')}, status, space, ${text('window_from')}, ${text('window_to')},
            requests, throttled, retries,
            conversations_listed, details_fetched, errors, message,
            date_diff('millisecond', started_at, coalesce(ended_at, ?::TIMESTAMPTZ)) / 1000.0 AS duration_sec
     FROM sync_runs ORDER BY run_id DESC LIMIT ?`,
    [now.toISOString(), runLimit],
  );
  const live = await liveRunIds(db, sync);
  const runs: RunStatus[] = runRows.map((r) => {
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
    };
  });

  const d = (await db.one(
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
       -- the condition of pendingDetails (state.ts), counted rather than listed
       (SELECT count(*) FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
          LEFT JOIN deleted_conversations x USING (id)
          WHERE ${NEEDS_DETAIL})::BIGINT AS pending`,
  )) ?? {};
  const pending = num(d.pending);
  const listed = num(d.listed);
  const stored = num(d.stored);

  const open = (await db.one(
    `SELECT count(*)::BIGINT AS n, ${text('min(started_at)', 'oldest')},
            count(*) FILTER (WHERE started_at < ?::TIMESTAMPTZ - INTERVAL 24 HOUR)::BIGINT AS old
     FROM conversations WHERE NOT coalesce(is_final, false)`,
    [now.toISOString()],
  )) ?? {};
  const newest = await db.one(`SELECT ${text('max(started_at)', 'newest')} FROM conversations`);

  const oldestRunShown = runs.length > 0 ? Math.min(...runs.map((r) => r.runId)) : null;
  const groups = oldestRunShown === null
    ? []
    : await db.all(
        `SELECT stage, http_status, count(*)::BIGINT AS n, count(DISTINCT conversation_id)::BIGINT AS conversations,
                ${text('max(occurred_at)', 'last_at')}, arg_max(message, occurred_at) AS last_message
         FROM sync_errors WHERE run_id >= ?
         GROUP BY stage, http_status ORDER BY n DESC, stage, http_status NULLS LAST`,
        [oldestRunShown],
      );

  const spaces = await spaceStatuses(db, watermarks, live);

  return {
    database: {
      path: dbPath,
      sizeBytes: statSync(dbPath).size,
      schemaVersion: schema ? Number(schema.value) : null,
    },
    spaces,
    syncRunning: sync,
    watermark: watermark ? formatInstant(watermark) : null,
    listingGaps,
    runs,
    tables,
    details: {
      listed,
      stored,
      missing: num(d.missing),
      setAside: num(d.set_aside),
      coerced: num(d.coerced),
      deleted: num(d.deleted),
      failing: num(d.failing),
      pending,
      coverage: listed > 0 ? stored / listed : null,
    },
    openConversations: { count: num(open.n), oldestStartedAt: iso(open.oldest), olderThan24h: num(open.old) },
    newestConversationAt: iso(newest?.newest),
    errors: {
      total: tables.sync_errors,
      recent: groups.map((g) => ({
        stage: String(g.stage),
        httpStatus: g.http_status === null || g.http_status === undefined ? null : num(g.http_status),
        count: num(g.n),
        conversations: num(g.conversations),
        lastAt: iso(g.last_at) ?? '',
        lastMessage: String(g.last_message ?? ''),
      })),
    },
  };
}

/**
 * The runs a live sync may still be writing: only while a sync holds the lock, and of each space
 * only its newest run (a sync crawls each space once; an older run left `running` was killed).
 */
async function liveRunIds(db: Database, sync: { pid: number } | null): Promise<Set<number>> {
  if (sync === null) return new Set();
  const rows = await db.all(
    `SELECT run_id, status FROM sync_runs
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1`,
  );
  return new Set(rows.filter((r) => r.status === 'running').map((r) => num(r.run_id)));
}

/** Each space's watermark, newest run and detail counts. */
async function spaceStatuses(
  db: Database,
  watermarks: Map<string, Date>,
  live: Set<number>,
): Promise<SpaceStatus[]> {
  const runs = await db.all(
    `SELECT space, run_id, status, ${text('started_at')}, ${text('ended_at')}
     FROM sync_runs WHERE space IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1`,
  );
  const details = await db.all(
    `SELECT l.space, count(*)::BIGINT AS listed,
            count(*) FILTER (WHERE d.id IS NOT NULL AND d.invalid_reason IS NULL)::BIGINT AS stored,
            count(*) FILTER (WHERE ${NEEDS_DETAIL})::BIGINT AS pending
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
    };
  });
}

function gapsByRun(gaps: ListingGap[], watermarkOf: (space: string | null) => Date | null): ListingGapStatus[] {
  const runs = [...new Set(gaps.map((g) => g.runId))].sort((a, b) => b - a);
  return runs.map((runId) => {
    const own = gaps.filter((g) => g.runId === runId);
    const span = combineShortWindows(own)!;
    const watermark = watermarkOf(own[0]!.space);
    return {
      runId,
      from: span.fromMs === null ? null : formatInstant(new Date(span.fromMs)),
      to: formatInstant(new Date(span.toMs)),
      missing: span.counted - span.served,
      counted: span.counted,
      served: span.served,
      windows: own.length,
      // A sync without a watermark lists everything; an incremental one starts an overlap before it.
      nextSyncRelists: watermark === null || (span.fromMs !== null && span.fromMs >= watermark.getTime() - DEFAULT_OVERLAP_MS),
    };
  });
}

/** Opens the database read-only (waiting for a sync's commit if needed) and reads its status. */
export async function getStatus(dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  return withReadOnlyDatabase(dbPath, options, (db) => readStatus(db, dbPath, options));
}

// ---------------------------------------------------------------------------------------
// Human-readable rendering.
