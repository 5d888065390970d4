// A client-side rolling-window rate limiter for one API key.
//
// The server accepts `limit` requests per rolling `windowMs` per key, and other integrations may
// spend the same key's budget at the same time. This limiter spaces OUR sends so that
//   1. no rolling window of `windowMs` ever holds more of our sends than our budget, and
//   2. the budget leaves room for the foreign usage inferred from the rate headers:
//      budget = min(maxRpm, limit, limit − foreign − reserve).
// It is pure apart from the injected clock, so all of it is unit-tested with a fake clock.
//
// Time model. A send is recorded when `acquire()` resolves and stays in our window for
// `windowMs + guardMs`. The caller moves the record with `restamp()` to when the request actually
// leaves (the API client does when undici writes it to the socket): the first request of a sync
// leaves 11–13 ms after the limiter let it go on an idle machine and 25–84 ms in the budget
// benchmark (a new connection, the HTTP client starting up). The guard absorbs the rest of the
// difference between our record and the server's arrival time, a few ms (event loop, socket
// writes); it is short (≤ 20 ms) because while one of our slots has expired at the server but not
// yet been refilled, a foreign client can take it (a longer stay for the first send lost that race
// to a client that started unseen with us: 2 × 429 in the simulated-clock tests). Sends are at
// least `minSpacingMs` apart, so the server sees them in the order we sent them, which keeps the
// foreign estimate exact (below).
//
// Foreign usage. A response tells the server's count when our request arrived (≈ when we sent it,
// on loopback): used = limit − remaining. Our part of it is our sends in (s − windowMs, s]
// (counted generously, ± skewMs at the edges, so the difference is a lower bound); the rest is
// foreign. Every response gives such a sample. The estimate is the MAX over the samples of the
// requests sent within the last `foreignHorizonMs` (default one window), not the latest or an
// average, because errors are not symmetric: one too low means a 429 (for us, or for the other
// client, which then looks smaller, so we take even more: a ratchet), one too high costs one slot.
// A window is the natural horizon: a foreign request counted in a sample stays counted by the
// server for at most one window, and with it the estimate follows the other client down within a
// window and up with the next response.
//
// The max sizes the budget. Whether another client is about at all (which switches pacing and the
// quiet-spell probe below on) asks for more: a sample one above the rest can be our own send. The
// server may stamp a request of ours later than we recorded it, by more than the guard (before
// restamps: 25–84 ms for the first request of every traced benchmark run, 21–35 ms now and then for
// others; after them, none in a traced run of the four cases, but the server's side can still be
// late). When its slot is refilled a window later the server still counts it, and that sample shows
// a foreign request that is ours: alone on the key, it switched pacing on, 77 requests short in a
// minute in the budget benchmark. Such a sample is "ambiguous": one of our sends left our window
// less than `lateMs` before it. A real foreign request stays counted for a whole window, so it
// shows in later samples too; a late send of ours only until the server drops it, a few ms later.
// So for this question an ambiguous sample counts one less unless the first sample sent `confirmMs`
// or more after it shows as much. The budget still takes it at face value (one slot for a window):
// a stall that delayed several of our sends makes several refills meet their old sends at the
// server, and only the smaller budget stops the second of them from being a 429.
//
// Reserve. One slot of the server's limit stays free. It absorbs what no estimate can see in time:
// a foreign request landing in the short gap between one of our slots expiring and our refill, a
// foreign client that wobbles around its rate (or starts with us, unseen), and a send of ours the
// server stamps later than we did by more than the guard (a busy event loop on either side). Each
// of these would otherwise be a 429. It costs 1/60 of the budget (1/45 of our share against a
// client using 15 of 60).
//
// Pacing. Alone on the key, each slot is refilled as soon as it leaves the window: the first
// window goes out at once and every later one repeats its pattern, the full budget in each. While
// another client is seen, sends after the first window are spread at `budget` per window instead
// (a token bucket of `paceBurst`), the sustainable rate anyway: no burst goes out on an old
// estimate, responses (and so samples) keep coming, and a client that started with us finds free
// slots and is seen, instead of our refilling the first burst's slots in a wave every window and
// starving it. (Pacing alone would cost throughput when the first window's sends came late in it:
// a paced refill cannot catch up with a late burst.)
//
// Unknowns. Before the first response we know nothing, not even the server's limit: one request
// goes alone. After a 429 (and its pause), and, while another client is about, after `quietMs`
// without a send or a response (it may have filled the server meanwhile, unseen), one request goes
// alone again to see how full the server is before the others follow. That costs one latency,
// which is why it is not done when nobody else has been seen.
//
// Blocking. When our window is full the head waiter sleeps exactly until the send that has to
// leave the window leaves it (+ guard). When foreign usage blocks, it sleeps until enough of our
// sends leave, but at most `pollMs`, and re-checks; every response, release and pause also wakes
// it. Waiters are served strictly first in, first out.

export interface Clock {
  /** Milliseconds on a monotonic scale (fractions allowed). */
  now(): number;
  /** Resolves after `ms`, or earlier (without throwing) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 2_000_000_000)));
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface RateLimiterOptions {
  /** Rolling window length; default 60 000 (the API's rolling minute). */
  windowMs?: number;
  /** Our own cap per window (per minute with the default window), below the server's limit. */
  maxRpm?: number;
  /** Limit assumed until a response carries `X-RateLimit-Limit`; default 60. */
  initialLimit?: number;
  clock?: Clock;
  /** Extra time a send stays in our window; default min(20, windowMs / 100) ms. */
  guardMs?: number;
  /** Minimum gap between two sends; default min(20, windowMs / (4 × limit)) ms. */
  minSpacingMs?: number;
  /** How far the server's arrival order may differ from our send order; default 10 ms. */
  skewMs?: number;
  /** Foreign usage is the max over samples of requests sent this recently; default windowMs. */
  foreignHorizonMs?: number;
  /** A send of ours may reach the server this much later than recorded; default min(100, windowMs / 100) ms. */
  lateMs?: number;
  /** An ambiguous sample counts in full once the first sample sent this much later shows as much; default min(250, windowMs / 240) ms. */
  confirmMs?: number;
  /** Slots of the server's limit kept free; default 1 (0 when the limit is below 10). */
  reserve?: number;
  /** Re-check interval while foreign usage blocks us; default clamp(windowMs / 300, 5, 250) ms. */
  pollMs?: number;
  /**
   * After the first window, spread sends at `budget` per window: 'auto' (default) while another
   * client uses the key, 'always', or 'never' (refill each slot as soon as it leaves the window).
   */
  pace?: 'auto' | 'always' | 'never';
  /** Paced sends may bunch up to this many; default 3. */
  paceBurst?: number;
  /** After this long without a send or a response, one request goes alone first; default windowMs / 4. */
  quietMs?: number;
}

export interface Ticket {
  readonly id: number;
  /** Clock time at which the send was recorded. */
  readonly sentAt: number;
}

/** What a response told us. Absent or non-numeric headers are left out. */
export interface RateObservation {
  limit?: number | undefined;
  remaining?: number | undefined;
  /** HTTP status; 429 marks the request as rejected by the server. */
  status?: number | undefined;
}

export interface RateLimiterStats {
  /** Sends recorded since creation. */
  sent: number;
  /** Our sends inside the window now. */
  inWindow: number;
  /** Sends with neither an observation nor a release yet. */
  inFlight: number;
  /** Callers waiting in `acquire`. */
  waiting: number;
  /** Server limit (learned or assumed). */
  limit: number;
  /** Estimated foreign requests in the server's window. */
  foreign: number;
  /** Slots of the server's limit kept free. */
  reserve: number;
  /** min(maxRpm, limit, limit − foreign − reserve), never below 0. */
  budget: number;
  /** Responses that were 429. */
  rejected: number;
  /** Clock time before which nothing is sent (0 when not paused). */
  pausedUntil: number;
}

type SendState = 'pending' | 'ok' | 'rejected' | 'failed';

interface SendRecord {
  id: number;
  t: number;
  state: SendState;
}

interface Waiter {
  resolve: (t: Ticket) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export interface Sample {
  /** send time of the request the sample came from */
  sentAt: number;
  /** lower bound of the foreign requests the server counted when that request arrived */
  foreign: number;
  /** a send of ours left our window just before: the server may still have counted it */
  ambiguous: boolean;
}

type Decision = { ok: true } | { ok: false; waitMs: number };

export class RateLimiter {
  readonly windowMs: number;
  readonly maxRpm: number | undefined;
  readonly guardMs: number;
  readonly skewMs: number;
  readonly foreignHorizonMs: number;
  readonly lateMs: number;
  readonly confirmMs: number;
  readonly pollMs: number;
  readonly pace: 'auto' | 'always' | 'never';
  readonly paceBurst: number;
  readonly quietMs: number;
  private readonly reserveOpt: number | undefined;
  private readonly minSpacingOpt: number | undefined;
  private readonly clock: Clock;

  private limit: number;
  /** a response (any) has arrived */
  private learned = false;
  /** after a 429 or a quiet spell: one request at a time until a normal response */
  private probing = false;
  private pausedUntilT = 0;
  private lastResponseAt = -Infinity;
  private firstSendAt: number | undefined;
  /** pacing tokens (see decide); NaN until pacing starts */
  private tokens = Number.NaN;
  private tokensAt = 0;
  private nextId = 1;
  private sentCount = 0;
  private rejectedCount = 0;
  /** Our sends in send order (the clock is monotonic, so sorted by `t`). */
  private sends: SendRecord[] = [];
  private readonly pending = new Map<number, SendRecord>();
  /** sorted by sentAt */
  private samples: Sample[] = [];
  private latest: Sample | undefined;
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(opts: RateLimiterOptions = {}) {
    this.windowMs = positive(opts.windowMs, 60_000, 'windowMs');
    this.maxRpm = opts.maxRpm === undefined ? undefined : Math.max(1, Math.floor(positive(opts.maxRpm, 60, 'maxRpm')));
    this.limit = Math.max(1, Math.floor(positive(opts.initialLimit, 60, 'initialLimit')));
    this.clock = opts.clock ?? systemClock;
    this.guardMs = Math.max(1, opts.guardMs ?? Math.min(20, this.windowMs / 100));
    this.minSpacingOpt = opts.minSpacingMs === undefined ? undefined : Math.max(0, opts.minSpacingMs);
    this.skewMs = Math.max(0, opts.skewMs ?? 10);
    this.foreignHorizonMs = Math.max(1, opts.foreignHorizonMs ?? this.windowMs);
    this.lateMs = Math.max(0, opts.lateMs ?? Math.min(100, this.windowMs / 100));
    this.confirmMs = Math.max(0, opts.confirmMs ?? Math.min(250, this.windowMs / 240));
    this.reserveOpt = opts.reserve === undefined ? undefined : Math.max(0, Math.floor(opts.reserve));
    this.pollMs = Math.max(1, opts.pollMs ?? clamp(this.windowMs / 300, 5, 250));
    this.pace = opts.pace ?? 'auto';
    this.paceBurst = Math.max(1, opts.paceBurst ?? 3);
    this.quietMs = Math.max(1, opts.quietMs ?? this.windowMs / 4);
  }

  /** Current minimum gap between sends (it scales with the learned limit). */
  get minSpacingMs(): number {
    return this.minSpacingOpt ?? Math.min(20, this.windowMs / (4 * this.limit));
  }

  now(): number {
    return this.clock.now();
  }

  /** Resolves when a request may be sent, and records the send. FIFO among callers. */
  acquire(signal?: AbortSignal): Promise<Ticket> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<Ticket>((resolve, reject) => {
      const w: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        w.onAbort = () => {
          const i = this.queue.indexOf(w);
          if (i >= 0) {
            this.queue.splice(i, 1);
            if (i === 0) this.kick();
          }
          reject(abortReason(signal));
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.queue.push(w);
      this.pump();
    });
  }

  /** Feeds back the response to `ticket`'s request: its rate headers and status. */
  observe(ticket: Ticket, obs: RateObservation): void {
    const rec = this.pending.get(ticket.id);
    if (!rec) return;
    this.pending.delete(ticket.id);
    this.lastResponseAt = this.clock.now();
    // Any response shows the server answers; without a limit header the configured one stays.
    this.learned = true;
    if (isCount(obs.limit) && obs.limit >= 1) this.limit = Math.floor(obs.limit);
    if (obs.status === 429) {
      // The server was full. The pause comes from the caller (Retry-After); after it, one request
      // finds out how full. A 429 carries no usable count, so it adds no sample.
      rec.state = 'rejected';
      this.rejectedCount++;
      this.probing = true;
    } else {
      rec.state = 'ok';
      this.probing = false;
      if (isCount(obs.remaining)) {
        const used = this.limit - Math.floor(obs.remaining);
        this.addSample({
          sentAt: rec.t,
          foreign: Math.max(0, used - this.ownAt(rec.t)),
          ambiguous: this.leftOurWindowJustBefore(rec.t),
        });
      }
    }
    this.kick();
  }

  /**
   * The request of `ticket` left for the server only at clock time `t` (undici wrote it to the socket
   * then: a new connection had to be opened, or the event loop was busy). Its record moves there,
   * so that it stays in our window as long as the server counts it.
   */
  restamp(ticket: Ticket, t: number): void {
    const rec = this.pending.get(ticket.id);
    if (!rec || t <= rec.t) return;
    const from = this.sends.lastIndexOf(rec);
    if (from < 0) return;
    this.sends.splice(from, 1);
    rec.t = t;
    let i = this.sends.length;
    while (i > 0 && this.sends[i - 1]!.t > t) i--;
    this.sends.splice(i, 0, rec);
  }

  /** The request failed without a response (network error). It still counts as sent. */
  release(ticket: Ticket): void {
    const rec = this.pending.get(ticket.id);
    if (!rec) return;
    this.pending.delete(ticket.id);
    rec.state = 'failed';
    this.kick();
  }

  /** After a 429 with Retry-After: nothing is sent before clock time `t`. */
  pauseUntil(t: number): void {
    if (t > this.pausedUntilT) {
      this.pausedUntilT = t;
      this.kick();
    }
  }

  /** Same as `pauseUntil(now() + ms)`. */
  pauseFor(ms: number): void {
    this.pauseUntil(this.clock.now() + Math.max(0, ms));
  }

  stats(): RateLimiterStats {
    const t = this.clock.now();
    const foreign = this.foreignEstimate(t);
    const reserve = this.reserve;
    return {
      sent: this.sentCount,
      inWindow: this.inWindow(t).length,
      inFlight: this.pending.size,
      waiting: this.queue.length,
      limit: this.limit,
      foreign,
      reserve,
      budget: Math.max(0, this.budgetFor(foreign, reserve)),
      rejected: this.rejectedCount,
      pausedUntil: this.pausedUntilT > t ? this.pausedUntilT : 0,
    };
  }

  // ---------------------------------------------------------------------------------------------

  private budgetFor(foreign: number, reserve: number): number {
    return Math.min(this.maxRpm ?? Infinity, this.limit, this.limit - foreign - reserve);
  }

  private get reserve(): number {
    return this.reserveOpt ?? (this.limit >= 10 ? 1 : 0);
  }

  /** Our sends (any state) still inside our window at `t`: s > t − windowMs − guard. */
  private inWindow(t: number): SendRecord[] {
    return this.sends.slice(this.firstSentAfter(t - this.windowMs - this.guardMs));
  }

  /** Index of the first of our sends with t > `cutoff` (binary search: sends are in time order). */
  private firstSentAfter(cutoff: number): number {
    let lo = 0;
    let hi = this.sends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sends[mid]!.t > cutoff) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /**
   * How many of our requests the server may have counted when the request sent at `s` arrived:
   * our sends in (s − windowMs − skew, s + skew]. Counting generously makes `used − own` a lower
   * bound of the foreign count; the max over samples closes the gap. Sends rejected with 429 are
   * left out (the server does not count them, or we would overestimate: the safe side); sends that
   * failed without a response are kept (on loopback they reached the server).
   */
  private ownAt(s: number): number {
    let n = 0;
    for (let i = this.sends.length - 1; i >= 0; i--) {
      const r = this.sends[i]!;
      if (r.t > s + this.skewMs) continue;
      if (r.t <= s - this.windowMs - this.skewMs) break;
      if (r.state !== 'rejected') n++;
    }
    return n;
  }

  /** One of our sends (not rejected) was sent in (s − windowMs − lateMs, s − windowMs − skew]. */
  private leftOurWindowJustBefore(s: number): boolean {
    const to = s - this.windowMs - this.skewMs;
    for (let i = this.firstSentAfter(s - this.windowMs - this.lateMs); i < this.sends.length; i++) {
      const r = this.sends[i]!;
      if (r.t > to) return false;
      if (r.state !== 'rejected') return true;
    }
    return false;
  }

  private addSample(s: Sample): void {
    const sentAt = s.sentAt;
    // responses come back out of order; keep the list sorted by send time
    let i = this.samples.length;
    while (i > 0 && this.samples[i - 1]!.sentAt > sentAt) i--;
    this.samples.splice(i, 0, s);
    if (!this.latest || sentAt >= this.latest.sentAt) this.latest = s;
  }

  /** The foreign estimate that sizes the budget: the max over the horizon's samples. */
  private foreignEstimate(t: number): number {
    const samples = this.recentSamples(t);
    if (samples.length > 0) {
      let max = 0;
      for (const s of samples) max = Math.max(max, s.foreign);
      return max;
    }
    return this.guessWithoutSamples();
  }

  /** Whether another client uses the key (pacing and quiet-spell probes): the discounted level ≥ 1. */
  private anotherClientSeen(t: number): boolean {
    const samples = this.recentSamples(t);
    return (samples.length > 0 ? foreignLevel(samples, this.confirmMs) : this.guessWithoutSamples()) >= 1;
  }

  private recentSamples(t: number): Sample[] {
    const cutoff = t - this.foreignHorizonMs;
    let i = 0;
    while (i < this.samples.length && this.samples[i]!.sentAt < cutoff) i++;
    if (i > 0) this.samples.splice(0, i);
    return this.samples;
  }

  private guessWithoutSamples(): number {
    if (!this.latest) return 0;
    // Nothing sent for a whole window: all the last sample counted has expired, but a steady
    // foreign client has most likely replaced it. Keep that guess, leaving at least one slot so a
    // probe can go out and refresh it instead of waiting forever.
    return Math.min(this.latest.foreign, this.limit - 1);
  }

  private prune(t: number): void {
    let keepFrom = t - this.windowMs - this.guardMs;
    const oldestPending = this.pending.values().next();
    if (!oldestPending.done) keepFrom = Math.min(keepFrom, oldestPending.value.t - this.windowMs - Math.max(this.lateMs, this.skewMs));
    let i = 0;
    while (i < this.sends.length && this.sends[i]!.t <= keepFrom) i++;
    if (i > 64 || i === this.sends.length) this.sends.splice(0, i);
  }

  private decide(t: number): Decision {
    if (t < this.pausedUntilT) return { ok: false, waitMs: this.pausedUntilT - t };
    const last = this.sends[this.sends.length - 1];
    const spacing = this.minSpacingMs;
    if (last && t < last.t + spacing) return { ok: false, waitMs: last.t + spacing - t };
    this.prune(t);
    const win = this.inWindow(t);
    const n = win.length;
    const cap = Math.min(this.maxRpm ?? Infinity, this.limit);
    const foreign = this.foreignEstimate(t);
    const budget = this.budgetFor(foreign, this.reserve);
    const shared = this.anotherClientSeen(t);
    const paceWait = this.paceWait(t, budget, shared);
    if (paceWait > 0) return { ok: false, waitMs: paceWait };
    const leaveAt = (k: number): number => win[k]!.t + this.windowMs + this.guardMs - t;

    if (n >= cap) {
      // Our own window is full: sleep until the send that must leave has left.
      return { ok: false, waitMs: leaveAt(n - cap) };
    }
    if (n >= budget) {
      // The reserve or foreign usage blocks us: our own expiries free a slot, and so may a lower
      // estimate as samples age (hence the poll; responses wake us anyway).
      const k = n - budget;
      const ownWait = budget > 0 && k < n ? leaveAt(k) : Infinity;
      return { ok: false, waitMs: Math.min(ownWait, foreign > 0 ? this.pollMs : this.windowMs) };
    }
    // After a quiet spell, with another client about, one request looks first (see the header).
    if (shared && last && t - Math.max(last.t, this.lastResponseAt) > this.quietMs) this.probing = true;
    if ((!this.learned || this.probing) && this.awaitingRecent(t)) {
      // One request at a time until a response tells the limit (at the start) or how full the
      // server is. Responses and releases wake us; the timeout is a safety net.
      return { ok: false, waitMs: this.windowMs };
    }
    return { ok: true };
  }

  /** Wait imposed by pacing (see the header); 0 during the first window and when not pacing. */
  private paceWait(t: number, budget: number, shared: boolean): number {
    if (this.pace === 'never' || (this.pace === 'auto' && !shared)) {
      this.tokens = Number.NaN;
      return 0;
    }
    if (this.firstSendAt === undefined || t - this.firstSendAt < this.windowMs || budget <= 0) return 0;
    const rate = budget / this.windowMs;
    if (Number.isNaN(this.tokens)) {
      this.tokens = 1;
      this.tokensAt = t;
    }
    this.tokens = Math.min(this.paceBurst, this.tokens + (t - this.tokensAt) * rate);
    this.tokensAt = t;
    // (a tolerance, or float rounding could make us wake up for ever-smaller waits)
    return this.tokens >= 1 - 1e-6 ? 0 : Math.max(1, (1 - this.tokens) / rate);
  }

  /** A request sent within the last window is still unanswered (older ones tell nothing soon). */
  private awaitingRecent(t: number): boolean {
    for (const rec of this.pending.values()) if (rec.t > t - this.windowMs) return true;
    return false;
  }

  private record(t: number): Ticket {
    this.firstSendAt ??= t;
    if (!Number.isNaN(this.tokens)) this.tokens -= 1;
    const rec: SendRecord = { id: this.nextId++, t, state: 'pending' };
    this.sends.push(rec);
    this.pending.set(rec.id, rec);
    this.sentCount++;
    return { id: rec.id, sentAt: t };
  }

  private kick(): void {
    this.wake?.abort();
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    void this.loop().finally(() => {
      this.pumping = false;
      if (this.queue.length > 0) this.pump();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const t = this.clock.now();
      const d = this.decide(t);
      if (d.ok) {
        const w = this.queue.shift()!;
        if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
        w.resolve(this.record(t));
        continue;
      }
      const ctl = new AbortController();
      this.wake = ctl;
      try {
        // at least a little: float rounding can leave a send "in the window" with 1e-11 ms to go
        await this.clock.sleep(Math.max(0.01, d.waitMs), ctl.signal);
      } catch {
        // a clock whose sleep rejects on abort: the same as waking up
      }
      this.wake = undefined;
    }
  }
}

/**
 * The level of foreign usage the samples of the horizon (sorted by send time) show beyond doubt:
 * their max, except that an ambiguous sample counts one less unless the first sample sent
 * `confirmMs` or more after it shows as much (see the header, after "Foreign usage").
 */
export function foreignLevel(samples: readonly Sample[], confirmMs: number): number {
  let best = 0;
  let j = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s.foreign <= best) continue;
    if (!s.ambiguous) {
      best = s.foreign;
      continue;
    }
    j = Math.max(j, i + 1);
    while (j < samples.length && samples[j]!.sentAt < s.sentAt + confirmMs) j++;
    const confirmed = j < samples.length && samples[j]!.foreign >= s.foreign;
    best = Math.max(best, confirmed ? s.foreign : s.foreign - 1);
  }
  return best;
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

function isCount(v: number | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function positive(v: number | undefined, dflt: number, name: string): number {
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${name} must be a positive number, got ${v}`);
  return v;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}
