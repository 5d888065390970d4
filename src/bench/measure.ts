// Small measuring helpers shared by the benchmarks (pure; no I/O).

import type { RequestKind, RequestLogEntry } from '../simulator/index.js';

/** A compact request-log entry: [ms epoch, 0 = our key / 1 = the other client, status, kind]. */
export type LogTuple = [number, 0 | 1, number, RequestKind];

/** Request counts by client, kind and status (kept instead of a log in long runs). */
export class RequestCounts {
  own = 0;
  other = 0;
  ownThrottled = 0;
  otherThrottled = 0;
  byKind: Partial<Record<RequestKind, number>> = {};
  /** the full log, only when asked for (budget cases) */
  log: LogTuple[] | null;

  constructor(keepLog = false) {
    this.log = keepLog ? [] : null;
  }

  add(e: RequestLogEntry): void {
    if (e.client === 'other') {
      this.other++;
      if (e.status === 429) this.otherThrottled++;
    } else {
      this.own++;
      if (e.status === 429) this.ownThrottled++;
      this.byKind[e.kind] = (this.byKind[e.kind] ?? 0) + 1;
    }
    this.log?.push([e.t, e.client === 'other' ? 1 : 0, e.status, e.kind]);
  }

  reset(): void {
    this.own = 0;
    this.other = 0;
    this.ownThrottled = 0;
    this.otherThrottled = 0;
    this.byKind = {};
    if (this.log) this.log = [];
  }

  snapshot(): CountsSnapshot {
    return {
      own: this.own,
      other: this.other,
      ownThrottled: this.ownThrottled,
      otherThrottled: this.otherThrottled,
      byKind: { ...this.byKind },
    };
  }
}

export interface CountsSnapshot {
  own: number;
  other: number;
  ownThrottled: number;
  otherThrottled: number;
  byKind: Partial<Record<RequestKind, number>>;
}

/** The most timestamps inside any window [t, t + windowMs) (two-pointer sweep over sorted times). */
export function maxInRollingWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

export interface WindowUse {
  /** whole windows from the first request of ours (the steady state: the tail is left out) */
  windows: number;
  /** our accepted requests per window, window by window */
  own: number[];
  /** the other client's accepted requests per window */
  other: number[];
  /** the budget left to us per window: the limit minus what the other client asks for */
  left: number;
  /** our accepted requests in the whole windows ÷ (windows × left); above 1: we took the other client's share, or a bucket's burst */
  utilisation: number;
  /** the lowest single window's share */
  worstWindow: number;
  /** the highest single window's share */
  bestWindow: number;
}

/**
 * Budget utilisation over the whole windows [t0 + kW, t0 + (k+1)W) that fit between our first
 * and our last request. The budget left to us is the limit minus the other client's demand (its
 * steady rate per window): what it got accepted would hide that we crowded it out.
 */
export function windowUse(log: readonly LogTuple[], limit: number, otherPerWindow: number, windowMs: number): WindowUse {
  const left = limit - otherPerWindow;
  const mine = log.filter((e) => e[1] === 0).map((e) => e[0]);
  if (mine.length === 0) return { windows: 0, own: [], other: [], left, utilisation: 0, worstWindow: 0, bestWindow: 0 };
  const t0 = Math.min(...mine);
  const t1 = Math.max(...mine);
  const windows = Math.max(1, Math.floor((t1 - t0) / windowMs));
  const own = new Array<number>(windows).fill(0);
  const other = new Array<number>(windows).fill(0);
  for (const [t, client, status] of log) {
    const k = Math.floor((t - t0) / windowMs);
    if (k < 0 || k >= windows || status === 429) continue;
    if (client === 0) own[k]!++;
    else other[k]!++;
  }
  const used = own.reduce((a, b) => a + b, 0);
  return {
    windows,
    own,
    other,
    left,
    utilisation: used / (windows * left),
    worstWindow: Math.min(...own) / left,
    bestWindow: Math.max(...own) / left,
  };
}

export function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

export function fixed(x: number, digits = 2): string {
  return Number.isFinite(x) ? x.toFixed(digits) : String(x);
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
