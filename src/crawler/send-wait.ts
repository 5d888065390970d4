// How long the head of the rate limiter's queue has waited, for the progress line: the time since
// the limiter's send count last changed between two reports.

import type { RateLimiterStats } from '../api/rate-limiter.js';
import type { SyncProgress } from './sync-types.js';

export class SendWait {
  /** the limiter's send count at the last report, and when it changed */
  private lastSent = -1;
  private lastSendAt = 0;

  /** What the queue waits for and since when; null while nothing waits (or only for spacing). */
  waiting(st: RateLimiterStats, now: number): SyncProgress['waiting'] {
    if (st.sent !== this.lastSent) {
      this.lastSent = st.sent;
      this.lastSendAt = now;
    }
    if (st.waitingFor === null || st.waitingFor === 'spacing') return null;
    // other-client and first-response waits are re-checks and timeouts, not a known time
    const known = st.waitingFor === 'own-window' || st.waitingFor === 'retry-after' || st.waitingFor === 'refill';
    return { reason: st.waitingFor, forMs: now - this.lastSendAt, nextInMs: known ? st.waitMs : null };
  }
}
