// `convoduck status`: what the database holds and how the crawl is doing, read from the
// database itself: recent runs, the watermark, row counts, detail coverage, conversations
// still open, and recorded errors grouped by stage and HTTP status.

import { existsSync, readFileSync, statSync } from 'node:fs';
import type { Database } from '../store/database.js';
import { PUBLIC_TABLES } from '../store/schema.js';
import { getWatermark, NEEDS_DETAIL } from '../store/state.js';
import { withReadOnlyDatabase, type ReadOptions } from './read.js';

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

export interface StatusReport {
  database: { path: string; sizeBytes: number; schemaVersion: number | null };
  /** a sync process currently holding the sync lock, or null */
  syncRunning: { pid: number } | null;
  /** conversations started before this were all listed (null before the first full listing) */
  watermark: string | null;
  runs: RunStatus[];
  tables: Record<(typeof PUBLIC_TABLES)[number], number>;
  details: {
    /** conversations the list endpoint returned */
    listed: number;
    /** usable detail bodies stored */
    stored: number;
    /** listed, never fetched */
    missing: number;
    /** fetched, but the body was unusable (fetched again next run) */
    invalid: number;
    /** without a usable detail and with a recorded error */
    failing: number;
    /** what the next sync fetches: missing, invalid, and details of unfinished conversations */
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
  now?: () => Date;
}

function iso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

function num(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** The pid in `<db>.sync-lock`, when that process is alive. */
function runningSync(dbPath: string): { pid: number } | null {
  const lockPath = `${dbPath}.sync-lock`;
  if (!existsSync(lockPath)) return null;
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) return null;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') return null;
    }
    return { pid };
  } catch {
    return null;
  }
}

export async function readStatus(db: Database, dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  const now = options.now?.() ?? new Date();
  const runLimit = options.runs ?? 5;
  const sync = runningSync(dbPath);

  const countsSql = PUBLIC_TABLES.map((t) => `(SELECT count(*) FROM ${t})::BIGINT AS ${t}`).join(', ');
  const counts = (await db.one(`SELECT ${countsSql}`)) ?? {};
  const tables = Object.fromEntries(PUBLIC_TABLES.map((t) => [t, num(counts[t])])) as StatusReport['tables'];

  const schema = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
  const watermark = await getWatermark(db);

  const runRows = await db.all(
    `SELECT run_id, started_at, ended_at, status, space, window_from, window_to, requests, throttled, retries,
            conversations_listed, details_fetched, errors, message,
            date_diff('millisecond', started_at, coalesce(ended_at, ?::TIMESTAMPTZ)) / 1000.0 AS duration_sec
     FROM sync_runs ORDER BY run_id DESC LIMIT ?`,
    [now.toISOString(), runLimit],
  );
  const newestRunId = runRows.length > 0 ? Math.max(...runRows.map((r) => num(r.run_id))) : null;
  const runs: RunStatus[] = runRows.map((r) => {
    const running = r.status === 'running';
    return {
      runId: num(r.run_id),
      startedAt: iso(r.started_at) ?? '',
      endedAt: iso(r.ended_at),
      status: String(r.status),
      // Only the newest run can still be going, and only while a sync holds the lock.
      stale: running && (sync === null || num(r.run_id) !== newestRunId),
      space: (r.space as string | null) ?? null,
      windowFrom: iso(r.window_from),
      windowTo: iso(r.window_to),
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
          invalid AS (SELECT id FROM raw_conversations WHERE invalid_reason IS NOT NULL),
          errored AS (SELECT DISTINCT conversation_id AS id FROM sync_errors WHERE conversation_id IS NOT NULL)
     SELECT
       (SELECT count(*) FROM raw_listed_conversations)::BIGINT AS listed,
       (SELECT count(*) FROM usable)::BIGINT AS stored,
       (SELECT count(*) FROM raw_listed_conversations l
          WHERE l.id NOT IN (SELECT id FROM raw_conversations))::BIGINT AS missing,
       (SELECT count(*) FROM invalid)::BIGINT AS invalid,
       (SELECT count(*) FROM errored WHERE id NOT IN (SELECT id FROM usable))::BIGINT AS failing,
       -- the condition of pendingDetailIds (state.ts), counted rather than listed
       (SELECT count(*) FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
          WHERE ${NEEDS_DETAIL})::BIGINT AS pending`,
  )) ?? {};
  const pending = num(d.pending);
  const listed = num(d.listed);
  const stored = num(d.stored);

  const open = (await db.one(
    `SELECT count(*)::BIGINT AS n, min(started_at) AS oldest,
            count(*) FILTER (WHERE started_at < ?::TIMESTAMPTZ - INTERVAL 24 HOUR)::BIGINT AS old
     FROM conversations WHERE NOT coalesce(is_final, false)`,
    [now.toISOString()],
  )) ?? {};
  const newest = await db.one(`SELECT max(started_at) AS newest FROM conversations`);

  const oldestRunShown = runs.length > 0 ? Math.min(...runs.map((r) => r.runId)) : null;
  const groups = oldestRunShown === null
    ? []
    : await db.all(
        `SELECT stage, http_status, count(*)::BIGINT AS n, count(DISTINCT conversation_id)::BIGINT AS conversations,
                max(occurred_at) AS last_at, arg_max(message, occurred_at) AS last_message
         FROM sync_errors WHERE run_id >= ?
         GROUP BY stage, http_status ORDER BY n DESC, stage, http_status NULLS LAST`,
        [oldestRunShown],
      );

  return {
    database: {
      path: dbPath,
      sizeBytes: statSync(dbPath).size,
      schemaVersion: schema ? Number(schema.value) : null,
    },
    syncRunning: sync,
    watermark: watermark?.toISOString() ?? null,
    runs,
    tables,
    details: {
      listed,
      stored,
      missing: num(d.missing),
      invalid: num(d.invalid),
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

/** Opens the database read-only (waiting for a sync's commit if needed) and reads its status. */
export async function getStatus(dbPath: string, options: StatusOptions = {}): Promise<StatusReport> {
  return withReadOnlyDatabase(dbPath, options, (db) => readStatus(db, dbPath, options));
}

// ---------------------------------------------------------------------------------------
// Human-readable rendering.

function thousands(n: number): string {
  return n.toLocaleString('en-US');
}

function shortTime(isoText: string | null): string {
  if (!isoText) return '-';
  return isoText.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function duration(sec: number | null): string {
  if (sec === null) return '-';
  if (sec < 60) return `${sec.toFixed(sec < 10 ? 1 : 0)}s`;
  const m = Math.floor(sec / 60);
  if (m < 60) return `${m}m${String(Math.round(sec % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

function grid(header: string[], rows: string[][], rightAligned: boolean[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function renderStatus(s: StatusReport): string {
  const out: string[] = [];
  out.push(
    `database   ${s.database.path} (${bytes(s.database.sizeBytes)}, schema ${s.database.schemaVersion ?? '?'})`,
    `sync       ${s.syncRunning ? `running (pid ${s.syncRunning.pid})` : 'not running'}`,
    `watermark  ${s.watermark ? `${shortTime(s.watermark)} (every conversation started before it is listed)` : 'none yet (no complete listing)'}`,
    `newest     ${s.newestConversationAt ? `conversation started ${shortTime(s.newestConversationAt)}` : 'no conversations yet'}`,
    '',
  );

  if (s.runs.length === 0) {
    out.push('runs       none yet: run `convoduck sync`', '');
  } else {
    out.push(`last ${s.runs.length} run${s.runs.length === 1 ? '' : 's'}`);
    const rows = s.runs.map((r) => [
      String(r.runId),
      shortTime(r.startedAt),
      duration(r.durationSec),
      r.stale ? 'running? (killed)' : r.status,
      thousands(r.conversationsListed),
      thousands(r.detailsFetched),
      thousands(r.errors),
      thousands(r.requests),
      thousands(r.throttled),
    ]);
    for (const line of grid(
      ['run', 'started', 'took', 'status', 'listed', 'details', 'errors', 'requests', 'throttled'],
      rows,
      [true, false, true, false, true, true, true, true, true],
    )) {
      out.push(`  ${line}`);
    }
    const failed = s.runs.find((r) => r.message);
    if (failed) out.push(`  run ${failed.runId}: ${failed.message}`);
    out.push('');
  }

  out.push('tables');
  for (const line of grid(
    ['table', 'rows'],
    Object.entries(s.tables).map(([t, n]) => [t, thousands(n)]),
    [false, true],
  ).slice(1)) {
    out.push(`  ${line}`);
  }
  out.push('');

  const d = s.details;
  const pct = d.coverage === null ? '' : ` (${(d.coverage * 100).toFixed(1)}%)`;
  out.push(
    'details',
    `  listed ${thousands(d.listed)}, stored ${thousands(d.stored)}${pct}, missing ${thousands(d.missing)}, ` +
      `invalid ${thousands(d.invalid)}, failing ${thousands(d.failing)}`,
    `  pending ${thousands(d.pending)} (fetched by the next sync: missing, invalid, or not final when fetched)`,
    '',
  );

  const o = s.openConversations;
  out.push(
    o.count === 0
      ? 'open       no conversation in progress'
      : `open       ${thousands(o.count)} conversation${o.count === 1 ? '' : 's'} not final, oldest started ${shortTime(o.oldestStartedAt)}` +
          (o.olderThan24h > 0 ? `; ${thousands(o.olderThan24h)} started over 24 h ago` : ''),
    '',
  );

  if (s.errors.total === 0) {
    out.push('errors     none recorded');
  } else if (s.errors.recent.length === 0) {
    out.push(`errors     ${thousands(s.errors.total)} recorded, none in the last ${s.runs.length} run(s)`);
  } else {
    out.push(`errors     ${thousands(s.errors.total)} recorded; in the last ${s.runs.length} run(s):`);
    const rows = s.errors.recent.map((g) => [
      g.stage,
      g.httpStatus === null ? '-' : String(g.httpStatus),
      thousands(g.count),
      thousands(g.conversations),
      shortTime(g.lastAt),
      g.lastMessage.length > 60 ? `${g.lastMessage.slice(0, 59)}…` : g.lastMessage,
    ]);
    for (const line of grid(
      ['stage', 'http', 'count', 'conversations', 'last', 'last message'],
      rows,
      [false, true, true, true, false, false],
    )) {
      out.push(`  ${line}`);
    }
    out.push('  details: convoduck query "SELECT * FROM sync_errors ORDER BY occurred_at DESC LIMIT 20"');
  }
  return out.join('\n') + '\n';
}
