// The crawl's load state, read from the database itself (as dlt does): what still needs a
// detail, and how far listing got. Nothing about progress lives outside the DuckDB file.

import type { Database } from './database.js';
import { getMeta, setMeta } from './writes.js';

const WATERMARK_KEY = 'listing_watermark';

/** How far before the watermark an incremental sync starts listing unless told otherwise (--overlap). */
export const DEFAULT_OVERLAP_MS = 3_600_000;

/**
 * Over raw_listed_conversations l LEFT JOIN raw_conversations d: the listed conversation needs its
 * detail fetched (never fetched, unusable, or not final when fetched).
 */
export const NEEDS_DETAIL = `(d.id IS NULL OR d.invalid_reason IS NOT NULL OR NOT coalesce(d.is_final, false))`;

/**
 * Conversations whose detail must be fetched: never fetched, fetched but unusable, or not
 * final when fetched (a finished conversation's detail is fetched once in its life).
 * `firstOutcomes` come first; within a group, newest first.
 */
export async function pendingDetailIds(db: Database, firstOutcomes: string[] = []): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT l.id
     FROM raw_listed_conversations l
     LEFT JOIN raw_conversations d USING (id)
     LEFT JOIN conversations c USING (id)
     WHERE ${NEEDS_DETAIL}
     ORDER BY coalesce(list_contains(string_split(?, ','), c.outcome), false) DESC, c.started_at DESC, l.id`,
    [firstOutcomes.join(',')],
  );
  return rows.map((r) => r.id);
}

/** The `to` of the last window listed completely, or null before the first full listing. */
export async function getWatermark(db: Database): Promise<Date | null> {
  const value = await getMeta(db, WATERMARK_KEY);
  return value ? new Date(value) : null;
}

export async function setWatermark(db: Database, to: Date): Promise<void> {
  await setMeta(db, WATERMARK_KEY, to.toISOString());
}

/** Listed conversations with no usable detail stored (never fetched, or fetch failed). */
export async function countMissingDetails(db: Database): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n
     FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
     WHERE d.id IS NULL OR d.invalid_reason IS NOT NULL`,
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
  const errors = await db.all<{ run_id: number; message: string }>(
    `SELECT run_id, message FROM sync_errors WHERE stage = 'listing' ORDER BY run_id, occurred_at`,
  );
  if (errors.length === 0) return [];
  const runs = (
    await db.all(
      `SELECT run_id, epoch_ms(window_from)::DOUBLE AS from_ms, epoch_ms(window_to)::DOUBLE AS to_ms
       FROM sync_runs WHERE status IN ('ok', 'errors') AND window_to IS NOT NULL AND run_id > ?`,
      [Number(errors[0]!.run_id)],
    )
  ).map((r) => ({ runId: Number(r.run_id), fromMs: r.from_ms === null ? null : Number(r.from_ms), toMs: Number(r.to_ms) }));
  const gaps: ListingGap[] = [];
  for (const e of errors) {
    const w = parseShortWindow(String(e.message));
    if (!w) continue;
    const runId = Number(e.run_id);
    const relisted = runs.some((r) => r.runId > runId && covers(r, w));
    if (!relisted) gaps.push({ runId, ...w });
  }
  return gaps;
}

function covers(outer: TimeWindow, inner: TimeWindow): boolean {
  const bottom = outer.fromMs === null || (inner.fromMs !== null && outer.fromMs <= inner.fromMs);
  return bottom && outer.toMs >= inner.toMs;
}
