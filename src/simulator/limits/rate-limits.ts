// The simulator's per-key rate limit, in three readings of "60 requests per minute per key"
// (spec §7/§8 name the limit and the headers, not the algorithm):
//   rolling: at most `limit` accepted requests in any rolling window of `windowMs`;
//   fixed:   a window of `windowMs` opened by its first accepted request, `limit` requests in it;
//   bucket:  a token bucket of `burst` tokens refilled at `limit` tokens per `windowMs`, starting full.
// Every limiter answers in whole seconds (at least 1) for Retry-After and in whole requests for
// X-RateLimit-Remaining; rejected requests are not counted.

export const RATE_ALGORITHMS = ['rolling', 'fixed', 'bucket'] as const;
export type RateAlgorithm = (typeof RATE_ALGORITHMS)[number];

export interface RateLimitSettings {
  /** requests per window (rolling, fixed) or tokens refilled per window (bucket) */
  limit: number;
  windowMs: number;
  /** bucket capacity; ignored by rolling and fixed */
  burst: number;
}

export type Acquired = { ok: true; remaining: number } | { ok: false; retryAfterSec: number };

export interface RateLimiter {
  /** A request at `t` (ms): accepted and counted, or refused with the wait in whole seconds. */
  acquire(t: number): Acquired;
  /** X-RateLimit-Remaining for a response at `t` that spends nothing (401, 429). */
  remaining(t: number): number;
  /** New settings, keeping what has been spent. */
  configure(settings: RateLimitSettings): void;
}

/** The bucket size when none is given: a sixth of the per-window rate, at least 1. */
export function defaultBurst(limit: number): number {
  return Math.max(1, Math.floor(limit / 6));
}

function wholeSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** What the two window readings share: the limit and window they count against, changeable. */
abstract class WindowLimiter implements RateLimiter {
  protected limit: number;
  protected windowMs: number;

  constructor(s: RateLimitSettings) {
    this.limit = s.limit;
    this.windowMs = s.windowMs;
  }

  configure(s: RateLimitSettings): void {
    this.limit = s.limit;
    this.windowMs = s.windowMs;
  }

  abstract acquire(t: number): Acquired;
  abstract remaining(t: number): number;
}

class RollingLimiter extends WindowLimiter {
  private times: number[] = [];
  private head = 0;

  private count(t: number): number {
    const edge = t - this.windowMs;
    while (this.head < this.times.length && this.times[this.head]! <= edge) this.head++;
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
    return this.times.length - this.head;
  }

  remaining(t: number): number {
    return Math.max(0, this.limit - this.count(t));
  }

  acquire(t: number): Acquired {
    const n = this.count(t);
    if (n < this.limit) {
      this.times.push(t);
      return { ok: true, remaining: Math.max(0, this.limit - n - 1) };
    }
    // The (n - limit + 1)-th oldest must leave the window: then n' = limit - 1.
    const oldest = this.times[this.head + (n - this.limit)] ?? t;
    return { ok: false, retryAfterSec: wholeSeconds(oldest + this.windowMs - t) };
  }
}

class FixedWindowLimiter extends WindowLimiter {
  /** start of the current window; null when none is open */
  private start: number | null = null;
  private used = 0;

  private open(t: number): boolean {
    if (this.start !== null && t >= this.start + this.windowMs) {
      this.start = null;
      this.used = 0;
    }
    return this.start !== null;
  }

  remaining(t: number): number {
    return this.open(t) ? Math.max(0, this.limit - this.used) : this.limit;
  }

  acquire(t: number): Acquired {
    if (!this.open(t)) this.start = t;
    if (this.used < this.limit) {
      this.used++;
      return { ok: true, remaining: Math.max(0, this.limit - this.used) };
    }
    return { ok: false, retryAfterSec: wholeSeconds(this.start! + this.windowMs - t) };
  }
}

class TokenBucketLimiter implements RateLimiter {
  private tokens: number;
  private last: number | null = null;
  private s: RateLimitSettings;
  // Float refills can land a hair under a whole token that is really there.
  private static readonly EPS = 1e-9;

  constructor(s: RateLimitSettings) {
    this.s = { ...s };
    this.tokens = s.burst;
  }

  configure(s: RateLimitSettings): void {
    this.s = { ...s };
    this.tokens = Math.min(this.tokens, s.burst);
  }

  private refill(t: number): void {
    if (this.last !== null && t > this.last) {
      this.tokens = Math.min(this.s.burst, this.tokens + ((t - this.last) * this.s.limit) / this.s.windowMs);
    }
    if (this.last === null || t > this.last) this.last = t;
  }

  remaining(t: number): number {
    this.refill(t);
    return Math.max(0, Math.floor(this.tokens + TokenBucketLimiter.EPS));
  }

  acquire(t: number): Acquired {
    this.refill(t);
    if (this.tokens + TokenBucketLimiter.EPS >= 1) {
      this.tokens = Math.max(0, this.tokens - 1);
      return { ok: true, remaining: Math.floor(this.tokens + TokenBucketLimiter.EPS) };
    }
    const msPerToken = this.s.windowMs / this.s.limit;
    return { ok: false, retryAfterSec: wholeSeconds((1 - this.tokens) * msPerToken) };
  }
}

export function createRateLimiter(algorithm: RateAlgorithm, settings: RateLimitSettings): RateLimiter {
  switch (algorithm) {
    case 'rolling':
      return new RollingLimiter(settings);
    case 'fixed':
      return new FixedWindowLimiter(settings);
    case 'bucket':
      return new TokenBucketLimiter(settings);
    default:
      throw new Error(`unknown rate algorithm ${JSON.stringify(algorithm)}: use ${RATE_ALGORITHMS.join(', ')}`);
  }
}
