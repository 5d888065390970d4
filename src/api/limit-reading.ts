// What the server's X-RateLimit-Remaining shows about how its limit frees up again.
//
// The spec says "60 requests per minute per key" and no more. A rolling window frees a slot when
// a request leaves it, a fixed window frees all of them at once when it resets, and a token bucket
// frees one token every windowMs / limit, whatever was sent a minute ago. Between two responses
// to our own requests a and b (in send order), Remaining moves by
//   rise = R_b − R_a + (our sends in (a, b])            (what appeared beyond our own use)
//   residual = rise − (our sends that left a rolling window in between)
// Alone on a rolling window the residual is 0; beside another client it is that client's expiries
// less its new requests, about 0 on average; a fixed window shows one large jump per window; a
// token bucket shows a steady residual of about limit / windowMs per ms, and never more. So a
// residual that keeps pace with the refill rate, and never jumps beyond it, reads as a bucket
// (or as slots freeing at that pace for any other reason), and the limiter then sends as the
// refill allows instead of waiting for a foreign client that is not there.

/** Counts our own sends (not rejected with 429) with from < t <= to. */
export type OwnSends = (from: number, to: number) => number;

interface Pair {
  /** send time of the later sample */
  at: number;
  rise: number;
  residual: number;
  /** tokens a bucket refilling at the full rate would have added between the two samples */
  expected: number;
  /** the earlier sample was at the top, where a bucket may have stopped refilling: not a rate sample */
  clipped: boolean;
}

export interface RefillReading {
  /** residual ÷ expected over the last window's unclipped pairs (0 when there is no evidence) */
  residualRatio: number;
  /** rise ÷ expected over the same pairs: the share of the full rate that frees up for us */
  riseRatio: number;
  /** expected tokens the ratios rest on */
  evidence: number;
  /** pairs in the last window where Remaining fell by more than our own sends explain */
  foreignFalls: number;
  /** a rise faster than any bucket refills was seen: a window reset or expiries, not a bucket */
  jumped: boolean;
}

export class LimitReading {
  private pairs: Pair[] = [];
  private head = 0;
  private last: { sentAt: number; remaining: number } | undefined;
  private maxRemaining = 0;
  private jumpedOnce = false;
  /** the responses showed slots freeing at a steady rate (a token bucket): kept for the run */
  private refillSeen = false;
  /** running sums over pairs[head..] (the last window), so a read costs nothing at any rate */
  private sum = { residual: 0, rise: 0, expected: 0, foreignFalls: 0 };

  constructor(
    private readonly windowMs: number,
    /**
     * how far the server's arrival order may differ from our send order: a send of ours counts as
     * freed by the server at windowMs + skewMs (our guard, which keeps it longer, would misplace
     * the freeing and read a rolling window as a bucket)
     */
    private readonly skewMs: number,
  ) {}

  /** The latest sample by send time. */
  get latest(): { sentAt: number; remaining: number } | undefined {
    return this.last;
  }

  /**
   * A response to a request sent at `sentAt` showed `remaining` (after counting that request).
   * Samples that arrive out of send order only update nothing but the maximum.
   */
  add(sentAt: number, remaining: number, limit: number, own: OwnSends): void {
    this.maxRemaining = Math.max(this.maxRemaining, remaining);
    const a = this.last;
    if (a && sentAt <= a.sentAt) return;
    this.last = { sentAt, remaining };
    if (!a) return;
    const gap = sentAt - a.sentAt;
    // Long gaps say little about a rate, and our sends that far back may be forgotten already.
    if (gap > this.windowMs / 4) return;
    const rise = remaining - a.remaining + own(a.sentAt, sentAt);
    const edge = this.windowMs + this.skewMs;
    const residual = rise - own(a.sentAt - edge, sentAt - edge);
    const expected = (limit * gap) / this.windowMs;
    if (residual > expected + 2) this.jumpedOnce = true;
    const pair: Pair = { at: sentAt, rise, residual, expected, clipped: a.remaining >= this.maxRemaining };
    this.pairs.push(pair);
    this.count(pair, 1);
  }

  private count(p: Pair, sign: 1 | -1): void {
    if (p.residual <= -1) this.sum.foreignFalls += sign;
    if (p.clipped) return;
    this.sum.residual += sign * p.residual;
    this.sum.rise += sign * p.rise;
    this.sum.expected += sign * p.expected;
  }

  /**
   * Slots that free at a steady rate, and never faster than a bucket refills, read as a token
   * bucket. Once read so, the run keeps that reading: a server's algorithm does not change.
   */
  get refill(): boolean {
    return this.refillSeen;
  }

  read(now: number): RefillReading {
    const cutoff = now - this.windowMs;
    while (this.head < this.pairs.length && this.pairs[this.head]!.at < cutoff) this.count(this.pairs[this.head++]!, -1);
    if (this.head > 1024 && this.head * 2 > this.pairs.length) {
      this.pairs = this.pairs.slice(this.head);
      this.head = 0;
    }
    const { residual, rise, expected, foreignFalls } = this.sum;
    const reading: RefillReading = {
      residualRatio: expected > 1e-9 ? residual / expected : 0,
      riseRatio: expected > 1e-9 ? rise / expected : 0,
      evidence: expected,
      foreignFalls,
      jumped: this.jumpedOnce,
    };
    if (!this.refillSeen && !reading.jumped && reading.evidence >= 2 && reading.residualRatio >= 0.5) this.refillSeen = true;
    return reading;
  }

  /** In refill mode, what of the full rate does not come back to us is someone else's. */
  foreign(r: RefillReading, limit: number): number {
    if (r.evidence < 2) return 0;
    return Math.max(0, Math.round((1 - Math.min(1, r.riseRatio)) * limit));
  }

  /**
   * In refill mode: how long until Remaining at the latest response, less our sends since
   * (`ownSince`), plus what refilled since at the pace seen, leaves `reserve` free after one more.
   */
  refillWait(t: number, r: RefillReading, limit: number, reserve: number, ownSince: (from: number) => number): number {
    const latest = this.last;
    if (!latest) return 0;
    const rate = (Math.max(0.1, Math.min(1, r.riseRatio)) * limit) / this.windowMs;
    const free = latest.remaining - ownSince(latest.sentAt) + rate * (t - latest.sentAt);
    const need = 1 + reserve - free;
    return need <= 1e-9 ? 0 : Math.min(need / rate, this.windowMs);
  }
}
