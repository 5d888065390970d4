// The rate limiter against the three ways a server may read "60 requests per minute per key":
// a rolling window, a fixed window counted from its first request, and a token bucket with a
// small burst, each alone on the key and beside another client spending a quarter of it.
import { describe, expect, it } from 'vitest';
import { maxInRollingWindow } from '../support/request-log.js';
import { countIn, simulate, type Algorithm, type Arrival } from '../support/rate-sim.js';

const W = 60_000;
const L = 60;
const throttledOf = (a: readonly Arrival[]): number => a.filter((x) => x.status === 429).length;
const acceptedIn = (a: readonly Arrival[], from: number, to: number): number =>
  a.filter((x) => x.status === 200 && x.t >= from && x.t < to).length;

const ALLOWED_429: Record<Algorithm, number> = { rolling: 1, fixed: 1, bucket: 3 };

describe('RateLimiter on every reading of the limit (fake clock)', () => {
  for (const algorithm of ['rolling', 'fixed', 'bucket'] as const) {
    it(`${algorithm}, alone on the key: at least 0.9 of the limit, at most ${ALLOWED_429[algorithm]} × 429`, async () => {
      const windows = 6;
      for (const seed of [1, 2]) {
        const { ours, limiter } = await simulate({ limit: L, windowMs: W, workers: 16, durationMs: windows * W, latency: [100, 1500], algorithm, seed });
        expect(throttledOf(ours)).toBeLessThanOrEqual(ALLOWED_429[algorithm]);
        // sustained: every window after the first
        for (let k = 1; k < windows; k++) expect(acceptedIn(ours, k * W, (k + 1) * W), `window ${k}, ${limiter.stats().reading}`).toBeGreaterThanOrEqual(0.9 * L);
      }
    });

    it(`${algorithm}, beside a client spending a quarter of the key: at most 1 × 429 for us`, async () => {
      const windows = 6;
      for (const seed of [3, 4]) {
        const { ours, others } = await simulate({
          limit: L,
          windowMs: W,
          workers: 16,
          durationMs: windows * W,
          latency: [100, 1500],
          algorithm,
          other: { start: 0, rpm: L / 4 },
          ourStart: 5_000,
          seed,
        });
        expect(throttledOf(ours)).toBeLessThanOrEqual(1);
        if (algorithm === 'rolling') {
          const all = [...ours, ...others].filter((a) => a.status === 200).map((a) => a.t);
          expect(maxInRollingWindow(all, W)).toBeLessThanOrEqual(L);
        }
        // we still get most of what is left
        for (let k = 2; k < windows; k++) expect(acceptedIn(ours, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(0.85 * (L - L / 4));
      }
    });
  }

  it('starts within a window when another client spent the key just before, and is throttled at most once', async () => {
    for (const algorithm of ['rolling', 'fixed', 'bucket'] as const) {
      // the other client: 59 requests in the 10 s before we start, then nothing
      const { ours, sends } = await simulate({
        limit: L,
        windowMs: W,
        workers: 16,
        durationMs: 4 * W,
        latency: [100, 800],
        algorithm,
        other: { start: 0, everyMs: 10_000 / 59 },
        otherStopAt: 10_000,
        ourStart: 10_000,
        seed: 9,
      });
      expect(throttledOf(ours), algorithm).toBeLessThanOrEqual(1);
      // within the window's turnover we are sending at full speed
      expect(countIn(sends, 10_000 + W, 10_000 + 2 * W), algorithm).toBeGreaterThanOrEqual(0.9 * L);
    }
  });

  it('beside a client that was there first, whatever the reading, that client is never refused', async () => {
    // We start 15 s into the other client's window: on a fixed window, a burst of ours would fill
    // what is left of it and refuse the other client until the window resets.
    for (const algorithm of ['rolling', 'fixed', 'bucket'] as const) {
      for (const seed of [1, 2, 3]) {
        const start = 75_000;
        const { ours, others } = await simulate({
          limit: L,
          windowMs: W,
          workers: 16,
          durationMs: start + 5 * W,
          latency: [800, 800],
          algorithm,
          other: { start: 0, rpm: L / 4 },
          ourStart: start,
          seed,
        });
        expect(throttledOf(others.filter((a) => a.t >= start)), `${algorithm}, seed ${seed}`).toBe(0);
        expect(throttledOf(ours)).toBe(0);
        for (let k = 1; k < 5; k++) expect(acceptedIn(ours, start + k * W, start + (k + 1) * W)).toBeGreaterThanOrEqual(0.95 * (L - L / 4 - 1));
      }
    }
  });
  it('never reads a rolling window as a bucket, alone or beside another client', async () => {
    // Slots free a window after the server counted a send, not a window plus our guard: counted
    // at the guard, the refills of a first burst look like slots freeing at a steady rate.
    for (let seed = 21; seed <= 26; seed++) {
      for (const other of [undefined, { start: 0, rpm: 15 }]) {
        const { limiter } = await simulate({ limit: L, windowMs: W, workers: 16, durationMs: 4 * W, latency: [100, 1500], seed, ...(other ? { other } : {}) });
        expect(limiter.stats().reading, `seed ${seed}, ${other ? 'beside' : 'alone'}`).toBe('window');
      }
    }
  });
});
