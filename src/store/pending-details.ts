// The load state of the details, read from the database itself (as dlt does): which listed
// conversations still need their detail fetched, in order, and how many.

import type { Database } from './database.js';
import type { StoredAt } from './writes.js';

/**
 * Over raw_listed_conversations l LEFT JOIN raw_conversations d LEFT JOIN deleted_conversations x:
 * the listed conversation needs its detail fetched: not deleted at the source, and never fetched,
 * set aside and its list entry changed since (or every one set aside, `retrySetAside`), or not
 * final when fetched.
 */
export function needsDetail(retrySetAside = false): string {
  const setAside = retrySetAside ? 'true' : 'coalesce(d.listing_changed, false)';
  return `(x.id IS NULL AND (d.id IS NULL
    OR (d.invalid_reason IS NOT NULL AND ${setAside})
    OR (d.invalid_reason IS NULL AND NOT coalesce(d.is_final, false))))`;
}
export const NEEDS_DETAIL = needsDetail();

/**
 * Over the same join: listed, not deleted, and no detail stored, or set aside and due again: what
 * every output calls "pending" (a detail stored but not final yet is "open", counted apart).
 */
export const MISSING_DETAIL = `(x.id IS NULL AND (d.id IS NULL OR (d.invalid_reason IS NOT NULL AND coalesce(d.listing_changed, false))))`;

/**
 * DuckDB's memory while it counts over a join of every listed id with every stored detail: below
 * the writer's cap, the join's hash table spills to disk rather than grow with the store.
 */
const COUNT_MEMORY_LIMIT = '40MB';

/** `AND l.space = ?` when a space is given (over raw_listed_conversations l), with its parameter. */
function ofSpace(space: string | undefined): { sql: string; params: string[] } {
  return space === undefined ? { sql: '', params: [] } : { sql: 'AND l.space = ?', params: [space] };
}

/** The conversations whose detail must be fetched, in order, and where each one's rows are stored. */
export interface PendingDetails {
  ids: string[];
  /** where the rows of ids[index] were stored when this was read */
  storedAt(index: number): StoredAt;
}

/** How many pending details one plan returns at most: the crawl needs only the next ones. */
export const PLAN_CHUNK = 10_000;

/**
 * Listed rows one of the plan's joins takes at once: joining and sorting every listed id of a
 * large store at once does not fit the writer's memory cap. A larger store is planned part by part
 * (by a hash of the id), each part's first ones kept, then the first of those.
 */
const PLAN_PART_ROWS = 65_536;

export interface PlanOptions {
  /** outcomes whose conversations come first */
  firstOutcomes?: string[];
  /** only this space's */
  space?: string;
  /** leaves out what this run tried: details it stored (fetched from `since` on) and ids it recorded an error for */
  tried?: { runId: number; since: Date };
  /** at most this many (default PLAN_CHUNK) */
  limit?: number;
  /** every detail set aside is due again, not only those whose list entry changed */
  retrySetAside?: boolean;
  /** listed rows per part (default PLAN_PART_ROWS) */
  partRows?: number;
}

/**
 * Conversations whose detail must be fetched: never fetched, fetched but unusable, or not
 * final when fetched (a finished conversation's detail is fetched once in its life).
 * `firstOutcomes` come first; within a group, newest first. The first `limit` of them.
 */
export async function pendingDetails(db: Database, options: PlanOptions = {}): Promise<PendingDetails> {
  const filter = ofSpace(options.space);
  const tried = options.tried;
  const limit = options.limit ?? PLAN_CHUNK;
  const listed = (await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM raw_listed_conversations`))?.n ?? 0;
  const parts = Math.max(1, Math.ceil(listed / (options.partRows ?? PLAN_PART_ROWS)));
  await db.run(
    `CREATE OR REPLACE TEMP TABLE _plan (id VARCHAR, listed_at TIMESTAMPTZ, fetched_at TIMESTAMPTZ, first BOOLEAN, started_at TIMESTAMPTZ)`,
  );
  for (let part = 0; part < parts; part++) {
    const inPart = parts === 1 ? 'true' : `hash(id) % ${parts} = ${part}`;
    await db.run(
      `INSERT INTO _plan
       SELECT l.id, l.listed_at, d.fetched_at, coalesce(list_contains(string_split(?, ','), c.outcome), false), c.started_at
       FROM (SELECT id, space, listed_at FROM raw_listed_conversations WHERE ${inPart}) l
       LEFT JOIN (SELECT id, fetched_at, invalid_reason, is_final, listing_changed FROM raw_conversations WHERE ${inPart}) d USING (id)
       LEFT JOIN (SELECT id, outcome, started_at FROM conversations WHERE ${inPart}) c USING (id)
       LEFT JOIN deleted_conversations x USING (id)
       WHERE ${needsDetail(options.retrySetAside)} ${filter.sql}
         ${tried ? `AND (d.fetched_at IS NULL OR d.fetched_at < ?::TIMESTAMPTZ)
         AND l.id NOT IN (SELECT conversation_id FROM sync_errors WHERE run_id = ? AND conversation_id IS NOT NULL)` : ''}
       ORDER BY 4 DESC, 5 DESC, 1
       LIMIT ?`,
      [(options.firstOutcomes ?? []).join(','), ...filter.params, ...(tried ? [tried.since.toISOString(), tried.runId] : []), limit],
    );
  }
  const rows = await db.all<{ id: string; listed_at: Date; fetched_at: Date | null }>(
    `SELECT id, listed_at, fetched_at FROM _plan ORDER BY first DESC, started_at DESC, id LIMIT ?`,
    [limit],
  );
  await db.run(`DROP TABLE _plan`);
  // two numbers per id rather than an object each (a first sync has every listed id pending)
  const listedAt = new Float64Array(rows.map((r) => r.listed_at.getTime()));
  const fetchedAt = new Float64Array(rows.map((r) => r.fetched_at?.getTime() ?? NaN));
  return {
    ids: rows.map((r) => r.id),
    storedAt: (i) => ({ listedAt: listedAt[i]!, fetchedAt: Number.isNaN(fetchedAt[i]) ? null : fetchedAt[i]! }),
  };
}

/** How many conversations need their detail fetched (what pendingDetails returns, counted); only `space`'s when given. */
export function countPendingDetails(db: Database, space?: string, retrySetAside = false): Promise<number> {
  return countListed(db, needsDetail(retrySetAside), space);
}

/** Listed conversations still without a detail the next run fetches (never fetched, or set aside and due again); only `space`'s when given. */
export function countMissingDetails(db: Database, space?: string): Promise<number> {
  return countListed(db, MISSING_DETAIL, space);
}

/** Listed conversations for which `condition` holds (over raw_listed_conversations l LEFT JOIN raw_conversations d). */
async function countListed(db: Database, condition: string, space?: string): Promise<number> {
  const filter = ofSpace(space);
  const row = await db.withMemoryLimit(COUNT_MEMORY_LIMIT, () =>
    db.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n
       FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
       LEFT JOIN deleted_conversations x USING (id)
       WHERE ${condition} ${filter.sql}`,
      filter.params,
    ),
  );
  return row?.n ?? 0;
}
