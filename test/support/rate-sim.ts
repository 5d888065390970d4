// A discrete-event fake clock and a simulated server, for the rate limiter's tests: whole
// minutes of traffic run in milliseconds, and every run is deterministic.
import { RateLimiter, type Clock, type Ticket } from '../../src/api/rate-limiter.js';

// ---- a discrete-event fake clock -------------------------------------------------------------

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

const flush = (): Promise<void> => new Promise((r) => setImmediate(r));

export class FakeClock implements Clock {
  t = 0;
  private seq = 0;
  private timers: Timer[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: this.seq++,
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Fires timers in time order until `end`, letting all promise chains settle after each. */
  async runUntil(end: number): Promise<void> {
    for (;;) {
      await flush();
      let next: Timer | undefined;
      for (const x of this.timers) {
        if (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq)) next = x;
      }
      if (!next || next.at > end) {
        this.t = Math.max(this.t, end);
        await flush();
        return;
      }
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fire();
    }
  }
}

// ---- a simulated server: one key's limit, read as a rolling window, a fixed window or a token bucket

export interface Arrival {
  t: number;
  who: 'us' | 'other';
  status: number;
}

export type Algorithm = 'rolling' | 'fixed' | 'bucket';

export class SimServer {
  accepted: number[] = [];
  log: Arrival[] = [];
  private windowStart = -Infinity;
  private windowCount = 0;
  private tokens: number;
  private tokensAt = 0;
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    readonly algorithm: Algorithm = 'rolling',
    readonly burst: number = Math.max(1, Math.floor(limit / 6)),
  ) {
    this.tokens = burst;
  }

  arrive(t: number, who: 'us' | 'other'): { status: number; limit: number; remaining: number; retryAfterMs: number } {
    const r = this.take(t);
    this.log.push({ t, who, status: r.ok ? 200 : 429 });
    if (!r.ok) return { status: 429, limit: this.limit, remaining: 0, retryAfterMs: Math.max(1, Math.ceil(r.waitMs / 1000)) * 1000 };
    this.accepted.push(t);
    return { status: 200, limit: this.limit, remaining: r.remaining, retryAfterMs: 0 };
  }

  private take(t: number): { ok: true; remaining: number } | { ok: false; waitMs: number } {
    if (this.algorithm === 'fixed') {
      if (t >= this.windowStart + this.windowMs) {
        this.windowStart = t;
        this.windowCount = 0;
      }
      if (this.windowCount >= this.limit) return { ok: false, waitMs: this.windowStart + this.windowMs - t };
      this.windowCount++;
      return { ok: true, remaining: this.limit - this.windowCount };
    }
    if (this.algorithm === 'bucket') {
      const rate = this.limit / this.windowMs;
      this.tokens = Math.min(this.burst, this.tokens + (t - this.tokensAt) * rate);
      this.tokensAt = t;
      if (this.tokens < 1) return { ok: false, waitMs: (1 - this.tokens) / rate };
      this.tokens -= 1;
      return { ok: true, remaining: Math.floor(this.tokens) };
    }
    const inWindow = this.accepted.filter((a) => a > t - this.windowMs);
    this.accepted = inWindow;
    if (inWindow.length >= this.limit) return { ok: false, waitMs: inWindow[0]! + this.windowMs - t };
    return { ok: true, remaining: this.limit - inWindow.length - 1 };
  }
}

/** Deterministic PRNG so failures reproduce. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RunOptions {
  limit: number;
  windowMs: number;
  workers: number;
  durationMs: number;
  latency: [number, number];
  /** send→arrival delay range (the guard must absorb its variation) */
  arrivalDelay?: [number, number];
  /** send→arrival delay of particular sends (by index from 0), instead of arrivalDelay */
  lateSends?: Record<number, number>;
  maxRpm?: number;
  initialLimit?: number;
  seed?: number;
  /**
   * A foreign client on the same key, from `start`: either one request every `everyMs` (± jitter),
   * or, with `rpm`, like the simulator's: a timer every min(1 s, 60 s / rpm) sends what is due.
   */
  other?: { start: number; everyMs?: number; jitterMs?: number; rpm?: number };
  /** the foreign client stops sending at this time */
  otherStopAt?: number;
  /** when our workers start */
  ourStart?: number;
  /** how the server reads its limit; default rolling */
  algorithm?: Algorithm;
  /** token bucket size; default limit / 6 */
  burst?: number;
  /** the server's Retry-After is left out of 429s (the limiter then guesses) */
  noRetryAfter?: boolean;
}

export async function simulate(o: RunOptions): Promise<{
  clock: FakeClock;
  limiter: RateLimiter;
  server: SimServer;
  sends: number[];
  ours: Arrival[];
  others: Arrival[];
}> {
  const clock = new FakeClock();
  const rand = rng(o.seed ?? 1);
  const server = new SimServer(o.limit, o.windowMs, o.algorithm ?? 'rolling', o.burst);
  const limiter = new RateLimiter({
    clock,
    windowMs: o.windowMs,
    ...(o.maxRpm !== undefined ? { maxRpm: o.maxRpm } : {}),
    ...(o.initialLimit !== undefined ? { initialLimit: o.initialLimit } : {}),
  });
  const sends: number[] = [];
  const end = o.durationMs;
  const between = (r: [number, number]): number => r[0] + rand() * (r[1] - r[0]);

  const worker = async (): Promise<void> => {
    if (o.ourStart) await clock.sleep(o.ourStart);
    while (clock.now() < end) {
      const ticket: Ticket = await limiter.acquire();
      if (clock.now() >= end) return;
      const late = o.lateSends?.[sends.length];
      sends.push(ticket.sentAt);
      await clock.sleep(late ?? between(o.arrivalDelay ?? [0, 3]));
      const r = server.arrive(clock.now(), 'us');
      await clock.sleep(between(o.latency));
      limiter.observe(ticket, { limit: r.limit, remaining: r.remaining, status: r.status });
      if (r.status === 429) limiter.pauseUntil(clock.now() + (o.noRetryAfter ? 1000 : r.retryAfterMs));
    }
  };
  const other = async (): Promise<void> => {
    const f = o.other;
    if (!f) return;
    await clock.sleep(f.start);
    if (f.rpm !== undefined) {
      const t0 = clock.now();
      const rpm = f.rpm;
      let done = 0;
      while (clock.now() < end) {
        await clock.sleep(Math.min(1000, 60_000 / rpm) + rand() * 2);
        const due = Math.floor(((clock.now() - t0) * rpm) / 60_000) - done;
        for (let i = 0; i < due; i++, done++) server.arrive(clock.now(), 'other');
      }
      return;
    }
    const every = f.everyMs ?? 4000;
    const stop = Math.min(end, o.otherStopAt ?? Infinity);
    while (clock.now() < stop) {
      server.arrive(clock.now(), 'other');
      const j = f.jitterMs ?? 0;
      await clock.sleep(every + (j ? (rand() * 2 - 1) * j : 0));
    }
  };
  const all = [other(), ...Array.from({ length: o.workers }, () => worker())];
  await clock.runUntil(end + 10 * o.windowMs);
  // workers blocked in acquire() after `end` never return; that is fine for a simulation
  void all;
  return {
    clock,
    limiter,
    server,
    sends,
    ours: server.log.filter((a) => a.who === 'us'),
    others: server.log.filter((a) => a.who === 'other'),
  };
}

export function countIn(ts: number[], from: number, to: number): number {
  return ts.filter((t) => t >= from && t < to).length;
}

