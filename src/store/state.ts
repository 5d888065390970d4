// The crawl's load state, read from the database itself (as dlt does): what still needs a
// detail, and how far listing got. Nothing about progress lives outside the DuckDB file.

import type { Database } from './database.js';
import type { StoredAt } from './writes.js';

/** How far before the watermark an incremental sync starts listing unless told otherwise (--overlap). */
export const DEFAULT_OVERLAP_MS = 3_600_000;

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

/** Over the same join: listed, not deleted, and no detail stored, or set aside and due again. */
const MISSING_DETAIL = `(x.id IS NULL AND (d.id IS NULL OR (d.invalid_reason IS NOT NULL AND coalesce(d.listing_changed, false))))`;

/**
 * DuckDB's memory while it counts over a join of every listed id with every stored detail (the
 * details pending, those left): under the writer's cap its hash table of a large store takes a
 * large share of the process's memory; under this one DuckDB spills the rest to disk, a little
 * slower. The plan's join, which also sorts and returns rows, runs out of memory under it.
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

/**
 * How many pending details one plan returns at most: every pending id of a large space would be
 * held as JS strings, and the crawl needs only the next ones.
 */
export const PLAN_CHUNK = 10_000;

/**
 * Listed rows one of the plan's joins takes at once. Joining every listed id of a large store with
 * the stored details and sorting them runs out of the writer's cap once many are pending (a first
 * sync of a large space), whatever the LIMIT; a part of this size fits it. A larger store is
 * planned part by part (by a hash of the id), each part's first ones kept, then the first of those.
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

/**
 * The `to` of the space's last window listed completely, or null before its first full listing.
 * Without a space: the earliest of every space's (what all of them were listed up to).
 */
export async function getWatermark(db: Database, space?: string): Promise<Date | null> {
  const row =
    space === undefined
      ? await db.one<{ listed_to: Date | null }>(`SELECT min(listed_to) AS listed_to FROM listing_watermarks`)
      : await db.one<{ listed_to: Date | null }>(`SELECT listed_to FROM listing_watermarks WHERE space = ?`, [space]);
  return row?.listed_to ?? null;
}

export async function setWatermark(db: Database, to: Date, space: string): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO listing_watermarks VALUES (?, ?::TIMESTAMPTZ)`, [space, to.toISOString()]);
}

/** Every space's watermark, by slug. */
export async function listWatermarks(db: Database): Promise<Map<string, Date>> {
  const rows = await db.all<{ space: string; listed_to: Date }>(`SELECT space, listed_to FROM listing_watermarks ORDER BY space`);
  return new Map(rows.map((r) => [r.space, r.listed_to]));
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

/** A window of started_at (ms, inclusive); `fromMs` null reaches back to the beginning of history. */
export interface TimeWindow {
  fromMs: number | null;
  toMs: number;
}

/** A window whose listing did not add up: the server counts more conversations than it served. */
export interface ShortWindow extends TimeWindow {
  /** the largest `meta.total` the server gave for the window */
  counted: number;
  /** distinct conversations seen in the window */
  served: number;
}

/** A short window no later run has listed again. */
export interface ListingGap extends ShortWindow {
  /** the run that found it */
  runId: number;
  /** the space that run listed */
  space: string | null;
}

/** One window spanning every short window, with their counts summed (null when none is short). */
export function combineShortWindows(short: readonly ShortWindow[]): ShortWindow | null {
  if (short.length === 0) return null;
  return {
    fromMs: short.some((w) => w.fromMs === null) ? null : Math.min(...short.map((w) => w.fromMs!)),
    toMs: Math.max(...short.map((w) => w.toMs)),
    counted: short.reduce((n, w) => n + w.counted, 0),
    served: short.reduce((n, w) => n + w.served, 0),
  };
}

function bound(ms: number | null): string {
  return ms === null ? 'beginning' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * The sync_errors message (stage `listing`) of a short window, e.g. `listing 2026-11-01T00:00:00Z..
 * 2026-11-02T00:00:00Z is short: the server counts 451 conversations, 450 were served`. `status`
 * reads the window back from it (parseShortWindow).
 */
export function describeShortWindow(w: ShortWindow): string {
  const noun = w.counted === 1 ? 'conversation' : 'conversations';
  return `listing ${bound(w.fromMs)}..${bound(w.toMs)} is short: the server counts ${w.counted} ${noun}, ${w.served} ${w.served === 1 ? 'was' : 'were'} served`;
}

const SHORT_WINDOW = /^listing (\S+?)\.\.(\S+) is short: the server counts (\d+) conversations?, (\d+) (?:was|were) served/;
/** The wording of databases written before the counts were named. */
const SHORT_WINDOW_FORMER = /^listing (\S+?)\.\.(\S+) returned (\d+) of (\d+) conversations/;

export function parseShortWindow(message: string): ShortWindow | null {
  const now = SHORT_WINDOW.exec(message);
  const former = now ? null : SHORT_WINDOW_FORMER.exec(message);
  const m = now ?? former;
  if (!m) return null;
  const fromMs = m[1] === 'beginning' ? null : Date.parse(m[1]!);
  const toMs = Date.parse(m[2]!);
  if (Number.isNaN(fromMs) || Number.isNaN(toMs)) return null;
  const [counted, served] = now ? [Number(m[3]), Number(m[4])] : [Number(m[4]), Number(m[3])];
  return { fromMs, toMs, counted, served };
}

/**
 * Short windows recorded by runs (sync_errors, stage `listing`) that no later run has listed
 * again: a later run that finished its listing (status ok or errors) over a window covering the
 * gap either listed it completely or recorded the gap anew.
 */
export async function openListingGaps(db: Database): Promise<ListingGap[]> {
  const errors = await db.all<{ run_id: number; message: string; space: string | null }>(
    `SELECT e.run_id, e.message, r.space
     FROM sync_errors e LEFT JOIN sync_runs r USING (run_id)
     WHERE e.stage = 'listing' ORDER BY e.run_id, e.occurred_at`,
  );
  if (errors.length === 0) return [];
  const runs = (
    await db.all(
      `SELECT run_id, space, epoch_ms(window_from)::DOUBLE AS from_ms, epoch_ms(window_to)::DOUBLE AS to_ms
       FROM sync_runs WHERE status IN ('ok', 'errors') AND window_to IS NOT NULL AND run_id > ?`,
      [Number(errors[0]!.run_id)],
    )
  ).map((r) => ({
    runId: Number(r.run_id),
    space: (r.space as string | null) ?? null,
    fromMs: r.from_ms === null ? null : Number(r.from_ms),
    toMs: Number(r.to_ms),
  }));
  const gaps: ListingGap[] = [];
  for (const e of errors) {
    const w = parseShortWindow(String(e.message));
    if (!w) continue;
    const runId = Number(e.run_id);
    const space = e.space ?? null;
    // another space's run lists other conversations: only the same space's relists the window
    const relisted = runs.some((r) => r.runId > runId && (r.space === space || r.space === null || space === null) && covers(r, w));
    if (!relisted) gaps.push({ runId, space, ...w });
  }
  return gaps;
}

function covers(outer: TimeWindow, inner: TimeWindow): boolean {
  const bottom = outer.fromMs === null || (inner.fromMs !== null && outer.fromMs <= inner.fromMs);
  return bottom && outer.toMs >= inner.toMs;
}

/** Stored conversations a keyset page of storedInWindow reads at once. */
const WINDOW_PAGE_ROWS = 20_000;

/**
 * The space's stored conversations not marked deleted whose started_at lies in the window (from
 * null: the beginning of history), with started_at in ms, in pages (a full listing of a large space).
 */
export async function* storedInWindow(
  db: Database,
  space: string,
  from: Date | null,
  to: Date,
): AsyncGenerator<{ id: string; startedMs: number }> {
  let after: { ms: number; id: string } | null = null;
  for (;;) {
    const rows: { id: string; ms: number }[] = await db.all<{ id: string; ms: number }>(
      `SELECT id, epoch_ms(started_at)::DOUBLE AS ms FROM conversations
       WHERE space = ? AND deleted_at IS NULL AND started_at IS NOT NULL
         AND started_at <= ?::TIMESTAMPTZ ${from ? `AND started_at >= '${from.toISOString()}'::TIMESTAMPTZ` : ''}
         ${after ? `AND (epoch_ms(started_at), id) > (${after.ms}, ?)` : ''}
       ORDER BY epoch_ms(started_at), id LIMIT ${WINDOW_PAGE_ROWS}`,
      after ? [space, to.toISOString(), after.id] : [space, to.toISOString()],
    );
    for (const r of rows) yield { id: r.id, startedMs: Number(r.ms) };
    if (rows.length < WINDOW_PAGE_ROWS) return;
    const last = rows.at(-1)!;
    after = { ms: Number(last.ms), id: last.id };
  }
}
