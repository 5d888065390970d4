// Pure planning of what a run lists. No I/O: tested without a server.

export interface WindowPlanInput {
  /** the run's start: the window's `to` is pinned here so pages cannot shift under the crawl */
  now: Date;
  /** the `to` of the last completely listed window, if any */
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
