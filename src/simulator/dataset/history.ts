// When the conversations of the history start: `days` days ending at `now`, the finished ones
// spread over hourly buckets weighted by hour of day and weekday (up to 15 minutes before now),
// and 3–5 open (in-progress) ones that started in the last ~10 minutes. About 2% of finished
// conversations share their started_at with another one.

import { Rng, hashSeed } from '../random.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

// Hour-of-day (UTC) and day-of-week weights: business hours, quieter weekends.
const HOUR_WEIGHTS = [
  0.05, 0.03, 0.02, 0.02, 0.03, 0.08, 0.25, 0.6, 1.0, 1.3, 1.4, 1.35, 1.1, 1.2, 1.3, 1.25, 1.1, 0.9, 0.6, 0.45,
  0.35, 0.25, 0.15, 0.08,
];
const DOW_WEIGHTS = [0.3, 1.1, 1.0, 1.0, 1.0, 0.9, 0.45]; // Sunday first

export interface HistoryStarts {
  /** start instants (ms) of the finished conversations, ascending */
  finished: Float64Array;
  /** start instants (ms) of the open conversations, ascending */
  open: number[];
}

/** subSecond: finished conversations start at a millisecond inside their second. */
export function historyStarts(seed: number, total: number, days: number, nowMs: number, subSecond: boolean): HistoryStarts {
  const historyStart = nowMs - days * DAY_MS;
  const rng = new Rng(hashSeed(seed, 0x7171, total, days));
  const openCount = Math.min(total, 3 + rng.int(0, 2));
  const openStarts: number[] = [];
  for (let i = 0; i < openCount; i++) openStarts.push(nowMs - rng.int(20, 600) * 1000);
  openStarts.sort((a, b) => a - b);
  for (let i = 1; i < openStarts.length; i++) {
    if (openStarts[i] === openStarts[i - 1]) openStarts[i] = openStarts[i]! + 1000;
  }
  const historyEnd = nowMs - 15 * 60_000;

  // Hourly buckets over [historyStart, historyEnd) weighted by hour of day and weekday.
  const finishedCount = total - openCount;
  const starts = new Float64Array(finishedCount);
  if (finishedCount > 0) {
    const firstBucket = Math.floor(historyStart / HOUR_MS) * HOUR_MS;
    const bucketStarts: number[] = [];
    const cumulative: number[] = [];
    let acc = 0;
    for (let b = firstBucket; b < historyEnd; b += HOUR_MS) {
      const lo = Math.max(b, historyStart);
      const hi = Math.min(b + HOUR_MS, historyEnd);
      if (hi <= lo) continue;
      const d = new Date(b);
      acc += HOUR_WEIGHTS[d.getUTCHours()]! * DOW_WEIGHTS[d.getUTCDay()]! * ((hi - lo) / HOUR_MS);
      bucketStarts.push(b);
      cumulative.push(acc);
    }
    for (let i = 0; i < finishedCount; i++) {
      const u = rng.next() * acc;
      let lo = 0;
      let hi = cumulative.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! > u) hi = mid;
        else lo = mid + 1;
      }
      const b = bucketStarts[lo]!;
      const from = Math.max(b, historyStart);
      const to = Math.min(b + HOUR_MS, historyEnd);
      starts[i] = Math.floor((from + rng.next() * (to - from)) / 1000) * 1000;
    }
    if (subSecond) {
      // Own stream: the main stream's draws, and so the whole-second dataset, do not depend on subSecond.
      const millis = new Rng(hashSeed(seed, 0x3111, total));
      for (let i = 0; i < finishedCount; i++) starts[i] = starts[i]! + millis.int(0, 999);
    }
    starts.sort();
    // Spread accidental same-second collisions, then let ~1% copy their predecessor's
    // instant, so that ~2% of conversations share a started_at with another one.
    if (finishedCount * 4 < (historyEnd - historyStart) / 1000) {
      for (let i = 1; i < finishedCount; i++) if (starts[i]! <= starts[i - 1]!) starts[i] = starts[i - 1]! + 1000;
    }
    for (let i = 1; i < finishedCount; i++) if (rng.chance(0.01)) starts[i] = starts[i - 1]!;
  }
  return { finished: starts, open: openStarts };
}
