import { describe, expect, it } from 'vitest';
import { foreignLevel, RateLimiter, type Ticket } from '../../src/api/rate-limiter.js';
import { maxInRollingWindow } from '../support/request-log.js';
import { FakeClock, countIn, simulate, type Arrival } from '../support/rate-sim.js';

// ---- tests -----------------------------------------------------------------------------------

const W = 60_000;
const throttledOf = (a: Arrival[]): number => a.filter((x) => x.status === 429).length;

describe('RateLimiter (fake clock)', () => {
  it('never puts more than the budget into any rolling window over long runs with random latencies', async () => {
    for (const seed of [7, 8, 9]) {
      const { sends, ours } = await simulate({
        limit: 60,
        windowMs: W,
        workers: 32,
        durationMs: 12 * W,
        latency: [20, 3000],
        arrivalDelay: [0, 15],
        seed,
      });
      expect(sends.length).toBeGreaterThan(600);
      expect(maxInRollingWindow(sends, W)).toBeLessThanOrEqual(60);
      // the server, counting arrivals, saw no more either: zero 429s
      expect(throttledOf(ours)).toBe(0);
      expect(maxInRollingWindow(ours.map((a) => a.t), W)).toBeLessThanOrEqual(60);
    }
  });

  it('uses at least 0.97 of the budget when nothing else competes', async () => {
    const windows = 10;
    const { sends } = await simulate({ limit: 60, windowMs: W, workers: 16, durationMs: windows * W, latency: [200, 1500], seed: 3 });
    expect(sends.length).toBeGreaterThanOrEqual(Math.ceil(0.97 * 60 * windows));
    expect(sends.length).toBeLessThanOrEqual(60 * windows);
    // and in every window after the first, not just on average
    for (let k = 1; k < windows; k++) {
      expect(countIn(sends, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(Math.floor(0.97 * 60));
    }
  });

  it('sends 60 per minute with 1.5 s latency and four callers (sends are spaced, not requests)', async () => {
    const { sends } = await simulate({ limit: 60, windowMs: W, workers: 4, durationMs: 5 * W, latency: [1500, 1500], seed: 5 });
    for (let k = 1; k < 5; k++) expect(countIn(sends, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(58);
  });

  it('learns a lower server limit from the first response before bursting', async () => {
    const w = 3000;
    const { sends, ours, limiter } = await simulate({ limit: 30, windowMs: w, workers: 16, durationMs: 10 * w, latency: [5, 80], seed: 11 });
    expect(throttledOf(ours)).toBe(0);
    expect(maxInRollingWindow(sends, w)).toBeLessThanOrEqual(30);
    expect(sends[1]! - sends[0]!).toBeGreaterThanOrEqual(5); // the second waited for the first answer
    expect(sends.length).toBeGreaterThanOrEqual(Math.floor(0.95 * 30 * 10));
    expect(limiter.stats().limit).toBe(30);
  });

  it('adapts to a foreign client spending 15/min of a 60/min budget', async () => {
    const start = W; // the other integration has been running for a window when we start
    const windows = 6;
    for (const seed of [13, 14, 15]) {
      const { ours, others, sends, limiter } = await simulate({
        limit: 60,
        windowMs: W,
        workers: 16,
        durationMs: start + windows * W,
        latency: [100, 1500],
        other: { start: 0, everyMs: 4000 },
        ourStart: start,
        seed,
      });
      expect(throttledOf(ours)).toBeLessThanOrEqual(1);
      // everything the other client sent was accepted: the combined count never exceeded the limit
      expect(throttledOf(others)).toBe(0);
      expect(maxInRollingWindow([...ours, ...others].map((a) => a.t), W)).toBeLessThanOrEqual(60);
      // our share: at least 0.97 × (60 − 15) per window
      for (let k = 1; k < windows; k++) {
        const from = start + k * W;
        expect(countIn(sends, from, from + W)).toBeGreaterThanOrEqual(Math.floor(0.97 * 45));
      }
      expect(limiter.stats().foreign).toBe(15);
    }
  });

  it('lets a foreign client that starts with us in, unseen at first, and is throttled at most once', async () => {
    // [seed, the other client's rpm, the window from which it is never rejected]
    for (const [seed, rpm, settled] of [[21, 15, 4], [22, 15, 4], [23, 30, 5]] as const) {
      const windows = 7;
      const { ours, others, sends } = await simulate({
        limit: 60,
        windowMs: W,
        workers: 16,
        durationMs: windows * W,
        latency: [100, 1500],
        other: { start: 0, rpm },
        seed,
      });
      expect(throttledOf(ours)).toBeLessThanOrEqual(1);
      // Our first window goes out before the other client shows. Once seen, our sends are paced
      // and one slot is always free: it is let in, and within a few windows gets all it asks for.
      expect(throttledOf(others.filter((a) => a.t >= settled * W))).toBe(0);
      // we take the rest, less the reserved slot and at most one for the other client's wobble
      for (let k = settled; k < windows; k++) {
        expect(countIn(sends, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(60 - rpm - 2);
      }
    }
  });

  it('adapts to a jittery foreign client without being throttled more than once', async () => {
    const start = W;
    for (const seed of [17, 18]) {
      const { ours, others } = await simulate({
        limit: 60,
        windowMs: W,
        workers: 16,
        durationMs: start + 6 * W,
        latency: [100, 1500],
        other: { start: 0, everyMs: 4000, jitterMs: 300 },
        ourStart: start,
        seed,
      });
      expect(throttledOf(ours)).toBeLessThanOrEqual(1);
      const ourShare = ours.filter((a) => a.t >= start + W && a.status === 200).length / 5;
      expect(ourShare).toBeGreaterThanOrEqual(0.97 * 44);
      expect(throttledOf(others.filter((a) => a.t >= start + W))).toBeLessThanOrEqual(1);
    }
  });

  it('keeps the server under its limit when our sends reach it up to 35 ms late at random (a busy server, a jittery network)', async () => {
    // The server counts arrivals. A send that arrives late while a later one arrives on time puts
    // both closer together in the server's window than in ours; the guard must cover that spread.
    for (const seed of [51, 52]) {
      const windows = 4;
      const { sends, ours } = await simulate({
        limit: 600,
        windowMs: W,
        workers: 32,
        durationMs: windows * W,
        latency: [40, 60],
        arrivalDelay: [0, 35],
        seed,
      });
      expect(throttledOf(ours)).toBe(0);
      expect(maxInRollingWindow(ours.map((a) => a.t), W)).toBeLessThanOrEqual(599);
      for (let k = 1; k < windows; k++) expect(countIn(sends, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(Math.floor(0.99 * 599));
    }
  });

  it('alone, does not take a send of its own that the server stamped late for another client', async () => {
    // A send that reaches the server later than we recorded it is still counted there when its
    // slot is refilled a window later: one "foreign" request that is ours. Taken at face value it
    // would switch pacing on and cost most of a window. Here sends arrive late with no restamp,
    // as lateness on the server's side would.
    const windows = 4;
    const { sends, ours, limiter } = await simulate({
      limit: 600,
      windowMs: W,
      workers: 32,
      durationMs: windows * W,
      latency: [1500, 1500],
      lateSends: { 0: 45, 1: 40, 2: 32, 50: 15 },
      seed: 41,
    });
    expect(throttledOf(ours)).toBe(0);
    expect(limiter.stats().foreign).toBe(0);
    for (let k = 1; k < windows; k++) expect(countIn(sends, k * W, (k + 1) * W)).toBeGreaterThanOrEqual(Math.floor(0.99 * 599));
  });

  it('counts an ambiguous sample one less until the next sample far enough after it shows as much', () => {
    const at = (sentAt: number, foreign: number, ambiguous = false) => ({ sentAt, foreign, ambiguous });
    expect(foreignLevel([at(0, 15), at(100, 16, true), at(200, 15)], 250)).toBe(15);
    expect(foreignLevel([at(0, 15), at(100, 16, true), at(400, 16)], 250)).toBe(16);
    expect(foreignLevel([at(0, 15), at(100, 16, true), at(400, 17, true)], 250)).toBe(16);
    expect(foreignLevel([at(0, 15), at(100, 16)], 250)).toBe(16);
    expect(foreignLevel([at(0, 0), at(100, 1, true), at(200, 0)], 250)).toBe(0);
    expect(foreignLevel([at(0, 0), at(100, 3, true)], 250)).toBe(2);
    expect(foreignLevel([], 250)).toBe(0);
    // two late sends of ours, far apart, do not confirm each other: samples between show 0
    expect(foreignLevel([at(0, 1, true), at(300, 0), at(8800, 1, true)], 250)).toBe(0);
  });

  it('honours a maxRpm cap below the server limit', async () => {
    const { sends } = await simulate({ limit: 60, windowMs: W, workers: 8, durationMs: 6 * W, latency: [50, 500], maxRpm: 20, seed: 19 });
    expect(maxInRollingWindow(sends, W)).toBeLessThanOrEqual(20);
    expect(sends.length).toBeGreaterThanOrEqual(Math.floor(0.97 * 20 * 6));
  });

  it('alone, refills each slot as it leaves; beside another client, spreads sends after the first window', async () => {
    // alone: the first window's burst repeats every window, full budget each time
    const alone = await simulate({ limit: 60, windowMs: W, workers: 32, durationMs: 4 * W, latency: [10, 20], seed: 31 });
    expect(countIn(alone.sends, 0, 5000)).toBeGreaterThanOrEqual(55);
    expect(countIn(alone.sends, 2 * W, 2 * W + 5000)).toBeGreaterThanOrEqual(55);
    // beside another client (running before us), later windows are spread: no 10 s holds more
    // than a sixth of our budget plus a small burst
    const shared = await simulate({
      limit: 60,
      windowMs: W,
      workers: 32,
      durationMs: 5 * W,
      latency: [10, 20],
      other: { start: 0, everyMs: 6000 },
      ourStart: W,
      seed: 32,
    });
    const later = shared.sends.filter((t) => t >= 3 * W);
    expect(later.length).toBeGreaterThan(80);
    expect(maxInRollingWindow(later, 10_000)).toBeLessThanOrEqual(Math.ceil(49 / 6) + 3);
    expect(throttledOf(shared.ours)).toBe(0);
  });

  it('after a 429 it pauses, then lets one request find out before the others follow', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: W });
    const first = limiter.acquire();
    await clock.runUntil(0);
    limiter.observe(await first, { limit: 60, remaining: 59 });
    const a = await (async () => {
      const p = limiter.acquire();
      await clock.runUntil(100);
      return p;
    })();
    // the server says it is full (another client used it up)
    limiter.observe(a, { limit: 60, remaining: 0, status: 429 });
    limiter.pauseUntil(clock.now() + 5000);
    const times: number[] = [];
    const tickets: Ticket[] = [];
    for (let i = 0; i < 3; i++) {
      void limiter.acquire().then((t) => {
        times.push(t.sentAt);
        tickets.push(t);
      });
    }
    await clock.runUntil(20_000);
    expect(times).toHaveLength(1);
    expect(times[0]).toBeGreaterThanOrEqual(5100);
    expect(limiter.stats().rejected).toBe(1);
    // its answer: 42 counted, 2 of them ours (the first and this one; the 429 was not counted),
    // so 40 foreign. The others go, within the smaller budget.
    limiter.observe(tickets[0]!, { limit: 60, remaining: 18 });
    await clock.runUntil(21_000);
    expect(times).toHaveLength(3);
    const st = limiter.stats();
    expect(st.foreign).toBe(40);
    expect(st.budget).toBe(19);
  });

  it('a 429 observed with its pause holds the next request at once: nothing slips out before the caller reacts', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: W });
    const first = await limiter.acquire();
    limiter.observe(first, { limit: 60, remaining: 0, status: 429, pauseMs: 5000 });
    let at = -1;
    void limiter.acquire().then((t) => (at = t.sentAt));
    await clock.runUntil(4999);
    expect(at).toBe(-1);
    await clock.runUntil(6000);
    expect(at).toBeGreaterThanOrEqual(5000);
  });

  it('pauseUntil holds every sender until the given time', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: 1000, initialLimit: 100 });
    limiter.pauseUntil(5000);
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      void limiter.acquire().then((t) => {
        times.push(t.sentAt);
        limiter.observe(t, { limit: 100, remaining: 99 - i });
      });
    }
    await clock.runUntil(4999);
    expect(times).toEqual([]);
    await clock.runUntil(6000);
    expect(times).toHaveLength(3);
    for (const t of times) expect(t).toBeGreaterThanOrEqual(5000);
    // an earlier pauseUntil does not shorten a later one
    limiter.pauseUntil(9000);
    limiter.pauseUntil(7000);
    let at = -1;
    void limiter.acquire().then((t) => (at = t.sentAt));
    await clock.runUntil(10_000);
    expect(at).toBe(9000);
  });

  it('serves waiters first in, first out, and drops aborted ones without spending budget', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: 1000, initialLimit: 1, guardMs: 1 });
    const got: string[] = [];
    const take = (name: string, signal?: AbortSignal): Promise<void> =>
      limiter.acquire(signal).then(
        (t) => {
          got.push(`${name}@${t.sentAt}`);
          limiter.observe(t, { limit: 1, remaining: 0 });
        },
        () => {
          got.push(`${name} aborted`);
        },
      );
    const ctl = new AbortController();
    const all = [take('a'), take('b', ctl.signal), take('c'), take('d'), take('e')];
    await clock.runUntil(500);
    ctl.abort();
    await clock.runUntil(10_000);
    await Promise.all(all);
    expect(got).toEqual(['a@0', 'b aborted', 'c@1001', 'd@2002', 'e@3003']);
    expect(limiter.stats().sent).toBe(4);
    // an already-aborted signal rejects at once
    await expect(limiter.acquire(AbortSignal.abort())).rejects.toBeDefined();
  });

  it('sleeps exactly until the oldest send leaves the window', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: 1000, initialLimit: 3, guardMs: 1, minSpacingMs: 0 });
    const got: number[] = [];
    const go = (): void => {
      void limiter.acquire().then((t) => {
        got.push(t.sentAt);
        limiter.observe(t, { limit: 3, remaining: 3 - got.length });
      });
    };
    go();
    await clock.runUntil(10);
    go();
    await clock.runUntil(20);
    go();
    await clock.runUntil(30);
    go();
    await clock.runUntil(3000);
    expect(got).toEqual([0, 10, 20, 1001]);
  });

  it('keeps a restamped send in the window until a window after its new time', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: 1000, initialLimit: 2, guardMs: 1, minSpacingMs: 0, reserve: 0 });
    const times: number[] = [];
    const first = await limiter.acquire();
    // the request reached its socket only at 30 ms (a new connection); its answer came at 35
    await clock.runUntil(30);
    limiter.restamp(first, clock.now());
    await clock.runUntil(35);
    limiter.observe(first, { limit: 2, remaining: 1 });
    for (let i = 0; i < 2; i++) void limiter.acquire().then((t) => times.push(t.sentAt));
    await clock.runUntil(2000);
    // the second goes at once; the third when the first leaves: a window after 30, not after 0
    expect(times).toEqual([35, 1031]);
  });

  it('shows a send in its window once it reached the server, and a send never connected not at all', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: 1000, initialLimit: 5, guardMs: 1, minSpacingMs: 0, reserve: 0 });
    const written = await limiter.acquire();
    // still connecting: in flight, not yet in the window
    expect(limiter.stats()).toMatchObject({ inWindow: 0, inFlight: 1 });
    limiter.restamp(written, clock.now());
    expect(limiter.stats()).toMatchObject({ inWindow: 1, inFlight: 1 });
    limiter.observe(written, { limit: 5, remaining: 4 });
    const tickets: Ticket[] = [];
    for (let i = 0; i < 2; i++) void limiter.acquire().then((t) => tickets.push(t));
    await clock.runUntil(100);
    const [answered, refused] = tickets as [Ticket, Ticket];
    expect(limiter.stats()).toMatchObject({ inWindow: 1, inFlight: 2 });
    limiter.observe(answered, { limit: 5, remaining: 3 });
    expect(limiter.stats()).toMatchObject({ inWindow: 2, inFlight: 1 });
    limiter.unsent(refused);
    expect(limiter.stats()).toMatchObject({ inWindow: 2, inFlight: 0 });
  });

  it('keeps sends at least minSpacingMs apart, so the server sees them in order', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: W });
    expect(limiter.minSpacingMs).toBe(20);
    const got: number[] = [];
    for (let i = 0; i < 5; i++) {
      void limiter.acquire().then((t) => {
        got.push(t.sentAt);
        limiter.observe(t, { limit: 60, remaining: 59 - i });
      });
    }
    await clock.runUntil(1000);
    expect(got).toEqual([0, 20, 40, 60, 80]);
  });

  it('reports stats: sent, limit, foreign estimate, reserve and budget', async () => {
    const clock = new FakeClock();
    const limiter = new RateLimiter({ clock, windowMs: W });
    const p = limiter.acquire();
    await clock.runUntil(0);
    // the server counted 10 requests including ours: 9 are foreign
    limiter.observe(await p, { limit: 60, remaining: 50 });
    expect(limiter.stats()).toMatchObject({ sent: 1, inWindow: 1, inFlight: 0, limit: 60, foreign: 9, reserve: 1, budget: 50 });
    // a window later the sample is gone, but is kept as the guess until a new answer comes
    await clock.runUntil(W + 100);
    expect(limiter.stats()).toMatchObject({ inWindow: 0, foreign: 9 });
  });
});
