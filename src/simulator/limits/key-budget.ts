// The API key's budget, shared by the simulator's own client and the other client: the rate
// limiter (rate-limits.ts, chosen by rateAlgorithm), the X-RateLimit-* headers and the
// Retry-After of a 429 (exact, missing or 3 × windowMs), and the key's deletion after
// revokeKeyAfter accepted requests, from then on every request gets 401.

import type { RuntimeOptions } from '../options.js';
import { createRateLimiter, type Acquired, type RateLimiter, type RateLimitSettings } from './rate-limits.js';

export class KeyBudget {
  private limiter: RateLimiter;
  /** accepted requests of the own client since revokeKeyAfter was set */
  private acceptedForRevoke = 0;

  constructor(private readonly options: RuntimeOptions) {
    this.limiter = createRateLimiter(options.rateAlgorithm, this.settings());
  }

  /** The key has been deleted (revokeKeyAfter reached). */
  revoked(): boolean {
    const o = this.options;
    return o.revokeKeyAfter !== null && this.acceptedForRevoke >= o.revokeKeyAfter;
  }

  /** A request at `t`; only the own client's accepted requests count toward revokeKeyAfter. */
  acquire(t: number, client: 'key' | 'other'): Acquired {
    const acq = this.limiter.acquire(t);
    if (acq.ok && client === 'key') this.acceptedForRevoke++;
    return acq;
  }

  remaining(t: number): number {
    return this.limiter.remaining(t);
  }

  headers(remaining: number): Record<string, string> {
    return { 'X-RateLimit-Limit': String(this.options.rateLimit), 'X-RateLimit-Remaining': String(remaining) };
  }

  /** The Retry-After sent with a 429 (null: none), by the retryAfter reading. */
  retryAfterSec(exact: number): number | null {
    const o = this.options;
    if (o.retryAfter === 'missing') return null;
    if (o.retryAfter === 'long') return Math.max(1, Math.ceil((3 * o.windowMs) / 1000));
    return exact;
  }

  /** After the options changed: a new limiter for a new algorithm, else the new settings keeping what was spent. */
  reconfigure(algorithmChanged: boolean): void {
    if (algorithmChanged) this.limiter = createRateLimiter(this.options.rateAlgorithm, this.settings());
    else this.limiter.configure(this.settings());
  }

  /** revokeKeyAfter was set again: count from now. */
  restartRevokeCount(): void {
    this.acceptedForRevoke = 0;
  }

  private settings(): RateLimitSettings {
    const o = this.options;
    return { limit: o.rateLimit, windowMs: o.windowMs, burst: o.burst };
  }
}
