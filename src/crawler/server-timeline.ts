// What a run read of the server's timeline: the newest started_at it listed, and how the server's
// clock (its Date headers) and that newest conversation stand against this machine's clock.

import type { SyncSummary } from './sync-types.js';

export type ClockReading = Pick<SyncSummary, 'clockSkewSeconds' | 'newestStartedAt' | 'newestAheadSeconds'>;

/** The latest started_at among `items` (summaries or instants in ms), at most `atMostMs`; null when none. */
export function newestStartedMs(items: Iterable<{ started_at: string } | number>, atMostMs = Infinity): number | null {
  let newest: number | null = null;
  for (const item of items) {
    const ms = typeof item === 'number' ? item : Date.parse(item.started_at);
    if (Number.isFinite(ms) && ms <= atMostMs && (newest === null || ms > newest)) newest = ms;
  }
  return newest;
}

/** The skew (ms, null without a Date header) and the newest started_at (ms) as a run's summary carries them, in seconds. */
export function readClock(skewMs: number | null, newestMs: number | null, serverNow: Date): ClockReading {
  const tenths = (ms: number) => Math.round(ms / 100) / 10;
  return {
    clockSkewSeconds: skewMs === null ? null : tenths(skewMs),
    newestStartedAt: newestMs === null ? null : new Date(newestMs).toISOString(),
    newestAheadSeconds: newestMs === null ? null : tenths(newestMs - serverNow.getTime()),
  };
}
