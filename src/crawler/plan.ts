// Pure planning of what a run lists. No I/O: tested without a server.

import type { TimeWindow } from '../store/watermark.js';

export interface WindowPlanInput {
  /** the run's start on the server's clock: the window's `to` is pinned no earlier, so pages cannot shift under the crawl */
  now: Date;
  /** where the last completely listed window left off on the server's timeline (the newest started_at it sent), if any */
  watermark: Date | null;
  overlapMs: number;
  since?: Date;
  until?: Date;
  full?: boolean;
}

export interface ListWindow {
  /** inclusive; null lists from the beginning of the space's history */
  from: Date | null;
  /** inclusive */
  to: Date;
  /** whether completing this window moves the watermark */
  advancesWatermark: boolean;
}

export function planWindow(input: WindowPlanInput): ListWindow {
  const to = input.until && input.until < input.now ? input.until : input.now;
  if (input.since) {
    // A bounded backfill (`--until`) never moves the watermark; neither does a `--since` that
    // would leave a hole between the watermark and itself.
    const leavesNoHole = input.watermark === null || input.since <= input.watermark;
    return { from: input.since, to, advancesWatermark: !input.until && leavesNoHole };
  }
  if (input.full || input.watermark === null) {
    return { from: null, to, advancesWatermark: !input.until };
  }
  return {
    from: new Date(input.watermark.getTime() - input.overlapMs),
    to,
    advancesWatermark: !input.until,
  };
}

/**
 * Whether the window's end is taken from its first page, asked for with no `to`: the newest
 * started_at the server serves, or its clock when that is later. Only a backfill ending before the
 * server's now (`--until`) has an end of its own.
 */
export function endFromFirstPage(input: Pick<WindowPlanInput, 'now' | 'until'>): boolean {
  return !(input.until && input.until < input.now);
}

/**
 * The point an incremental listing resumes from after a window that added up: the newest started_at
 * the server sent in it, never past the server's clock (a conversation dated in the future must not
 * hide the ones that follow it), never before the point it resumed from.
 */
export function nextListedNewest(previous: Date | null, newestSeenMs: number | null, serverNow: Date): Date | null {
  if (newestSeenMs === null) return previous;
  const candidate = Math.min(newestSeenMs, serverNow.getTime());
  return new Date(previous === null ? candidate : Math.max(previous.getTime(), candidate));
}

/** Splits [from, to] (ms, inclusive) into two inclusive halves that do not overlap. */
export function splitWindow(fromMs: number, toMs: number): [[number, number], [number, number]] | null {
  if (toMs <= fromMs) return null;
  const mid = Math.floor((fromMs + toMs) / 2);
  return [
    [fromMs, mid],
    [mid + 1, toMs],
  ];
}

/** How many of the conversations seen started inside [fromMs, toMs]. */
export function countInWindow(startedAt: Iterable<number>, fromMs: number, toMs: number): number {
  let n = 0;
  for (const t of startedAt) if (t >= fromMs && t <= toMs) n++;
  return n;
}

/**
 * The page size the server really serves, from its first page: `meta.per_page` when the page
 * agrees with it (full, or holding every counted item), otherwise what the page held.
 */
export function servedPageSize(meta: { per_page: number; total: number }, itemsOnFirstPage: number): number {
  const claimed = meta.per_page;
  const plausible = Number.isInteger(claimed) && claimed >= 1;
  if (plausible && itemsOnFirstPage === Math.min(claimed, meta.total)) return claimed;
  if (itemsOnFirstPage > 0) return itemsOnFirstPage;
  return plausible ? claimed : 1;
}

/** How many pages hold `total` items at `served` per page (at least the first is always asked for). */
export function pageCount(total: number, served: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / Math.max(1, served)));
}

/**
 * The windows to re-list a short window as, covering exactly what it covers, split where half
 * of the conversations seen in it lie (so each level halves the pages to re-list); null when it
 * cannot be split (one instant, or open at the bottom with nothing seen in it). A window open at
 * the bottom keeps an open-ended part below the earliest conversation seen, so nothing older than
 * what the server happened to serve is dropped.
 */
export function splitShortWindow(window: TimeWindow, seenStartedAt: readonly number[]): TimeWindow[] | null {
  const { fromMs, toMs } = window;
  const seen = seenStartedAt.filter((t) => t <= toMs && (fromMs === null || t >= fromMs)).sort((a, b) => a - b);
  if (fromMs === null) {
    if (seen.length === 0) return null;
    const earliest = seen[0]!;
    return [{ fromMs: null, toMs: earliest - 1 }, ...halves(earliest, toMs, seen)];
  }
  if (toMs <= fromMs) return null;
  return halves(fromMs, toMs, seen);
}

/** [from, to] split after the median of `seen` (or the middle instant when nothing was seen). */
function halves(fromMs: number, toMs: number, seen: readonly number[]): TimeWindow[] {
  if (toMs <= fromMs) return [{ fromMs, toMs }];
  if (seen.length === 0) return splitWindow(fromMs, toMs)!.map(([a, b]) => ({ fromMs: a, toMs: b }));
  const cut = Math.min(Math.max(seen[Math.floor((seen.length - 1) / 2)]!, fromMs), toMs - 1);
  return [
    { fromMs, toMs: cut },
    { fromMs: cut + 1, toMs },
  ];
}

export type DetailsMode = { kind: 'all' } | { kind: 'none' } | { kind: 'first'; outcomes: string[] };

/** `all`, `none`, or a comma list of outcomes to fetch first (then the rest). */
export function parseDetailsMode(value: string): DetailsMode | null {
  const text = value.trim();
  if (text === 'all') return { kind: 'all' };
  if (text === 'none') return { kind: 'none' };
  const outcomes = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (outcomes.length === 0 || outcomes.some((o) => !/^[a-z_]+$/.test(o))) return null;
  return { kind: 'first', outcomes };
}
