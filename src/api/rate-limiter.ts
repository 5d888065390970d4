// A client-side rate limiter for one API key: as many requests as the key's limit allows, never
// more, whatever else spends the key and however the server counts.
// One file over 400 lines: the queue and the decision to send read the same state. What stands
// alone is beside it: clock.ts, own-sends.ts, foreign-usage.ts, limit-reading.ts, pacer.ts.
//
//   1. No rolling window of `windowMs` holds more of our sends than min(maxRpm, limit). A send
//      counts from when it left (the API client restamps it when undici writes it to the socket).
//   2. The budget leaves room for other clients and one reserve slot:
//      budget = min(maxRpm, limit, limit − foreign − reserve)   (foreign-usage.ts)
//      While another client is seen, sends after the first window are paced at the budget per
//      window, so that it always finds a free slot instead of meeting our refills in a wave.
//   3. How the server frees slots is read from how Remaining moves (limit-reading.ts). A fixed
//      window frees them no later than a rolling one would, so the rolling reading serves it. A
//      token bucket looks like a heavy client that never sends; once its steady refill shows, the
//      limiter sends whenever Remaining, less our sends since, plus the refill since, leaves the
//      reserve free.
//   4. No wait without end. Before the first response one request goes alone (it tells the
//      limit); after a 429 and its pause, one goes alone; a high foreign level that nobody is seen
//      adding to (an earlier run's requests, a bucket's small size) is probed one request at a
//      time at the sustainable pace; `stats()` says what the head of the queue waits for.
//
// The reserve slot absorbs what no estimate sees in time: a foreign request landing between one of
// our slots expiring and our refill, a client that wobbles or starts unseen, a send the server
// stamps late. Waiters are served first in, first out. Everything is pure apart from the injected
// clock, so all of it is tested on a fake one (test/support/rate-sim.ts).

import { systemClock, type Clock } from './clock.js';
import { ForeignUsage } from './foreign-usage.js';
import { LimitReading, type RefillReading } from './limit-reading.js';
import { OwnSends } from './own-sends.js';
import { Pacer } from './pacer.js';

export { systemClock, type Clock } from './clock.js';
export { foreignLevel, type Sample } from './foreign-usage.js';

export interface RateLimiterOptions {
  /** Rolling window length; default 60 000 (the API's rolling minute). */
  windowMs?: number;
  /** Our own cap per window (per minute with the default window), below the server's limit. */
  maxRpm?: number;
  /** Limit assumed until a response carries `X-RateLimit-Limit`; default 60. */
  initialLimit?: number;
  clock?: Clock;
  /**
   * Extra time a send stays in our window; default min(40, windowMs / 100) ms. The server counts
   * arrivals: a send that reaches it late beside one that does not lands closer in its window.
   * (A longer guard leaves a longer gap for another client's request at each refill.)
   */
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
  /** with a 429: nothing is sent for this long, from now (set here, so nothing slips out first) */
  pauseMs?: number | undefined;
}

export interface RateLimiterStats {
  /** Sends recorded since creation. */
  sent: number;
  /** Our sends inside the window now that reached the server (written or answered). */
  inWindow: number;
  /** When each of those leaves the window, in ms from now, soonest first. */
  leaveInMs: number[];
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
  /** How the server's limit is read: a window (rolling or fixed), or slots freeing at a steady rate. */
  reading: 'window' | 'refill';
  /** What the head of the queue waits for, when it waits. */
  waitingFor: WaitReason | null;
  /** Milliseconds until the head of the queue may go, as far as known (0 when nobody waits). */
  waitMs: number;
}

/** Why nothing is sent right now; the CLI tells the user, so that no minute passes in silence. */
export type WaitReason =
  | 'retry-after' // the server answered 429; waiting as its Retry-After said
  | 'own-window' // our own budget for the window is spent
  | 'other-client' // another client (or an earlier run) uses the key's budget
  | 'refill' // the server frees slots at a steady rate: waiting for the next one
  | 'first-response' // one request is out to learn the limit or how full the server is
  | 'spacing';

interface Waiter {
  resolve: (t: Ticket) => void;
  reject: (e: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

type Decision = { ok: true } | { ok: false; waitMs: number; reason: WaitReason };

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
  private readonly pacer: Pacer;
  private sentCount = 0;
  private rejectedCount = 0;
  private readonly sends: OwnSends;
  private readonly foreignUsage: ForeignUsage;
  private readonly queue: Waiter[] = [];
  private readonly limitReading: LimitReading;
  /** since when the foreign level has been a third of the limit or more (see staticForeign) */
  private bigForeignSince: number | undefined;
  private lastDecision: { at: number; d: Decision } | undefined;
  private pumping = false;
  private wake: AbortController | undefined;

  constructor(opts: RateLimiterOptions = {}) {
    this.windowMs = positive(opts.windowMs, 60_000, 'windowMs');
    this.maxRpm = opts.maxRpm === undefined ? undefined : Math.max(1, Math.floor(positive(opts.maxRpm, 60, 'maxRpm')));
    this.limit = Math.max(1, Math.floor(positive(opts.initialLimit, 60, 'initialLimit')));
    this.clock = opts.clock ?? systemClock;
    this.guardMs = Math.max(1, opts.guardMs ?? Math.min(40, this.windowMs / 100));
    this.minSpacingOpt = opts.minSpacingMs === undefined ? undefined : Math.max(0, opts.minSpacingMs);
    this.skewMs = Math.max(0, opts.skewMs ?? 10);
    this.foreignHorizonMs = Math.max(1, opts.foreignHorizonMs ?? this.windowMs);
    this.lateMs = Math.max(0, opts.lateMs ?? Math.min(100, this.windowMs / 100));
    this.confirmMs = Math.max(0, opts.confirmMs ?? Math.min(250, this.windowMs / 240));
    this.reserveOpt = opts.reserve === undefined ? undefined : Math.max(0, Math.floor(opts.reserve));
    this.pollMs = Math.max(1, opts.pollMs ?? clamp(this.windowMs / 300, 5, 250));
    this.pace = opts.pace ?? 'auto';
    this.paceBurst = Math.max(1, opts.paceBurst ?? 3);
    this.pacer = new Pacer(this.windowMs, this.paceBurst);
    this.quietMs = Math.max(1, opts.quietMs ?? this.windowMs / 4);
    this.limitReading = new LimitReading(this.windowMs, this.skewMs);
    this.sends = new OwnSends(this.windowMs, this.guardMs, this.skewMs, this.lateMs);
    this.foreignUsage = new ForeignUsage(this.foreignHorizonMs, this.confirmMs);
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
    const rejected = obs.status === 429;
    const rec = this.sends.settle(ticket.id, rejected ? 'rejected' : 'ok');
    if (!rec) return;
    this.lastResponseAt = this.clock.now();
    // Any response shows the server answers; without a limit header the configured one stays.
    this.learned = true;
    if (isCount(obs.limit) && obs.limit >= 1) this.limit = Math.floor(obs.limit);
    if (rejected) {
      // The server was full. The pause comes from the caller (Retry-After); after it, one request
      // finds out how full. A 429 carries no usable count, so it adds no sample.
      this.rejectedCount++;
      this.probing = true;
      if (obs.pauseMs !== undefined) this.pausedUntilT = Math.max(this.pausedUntilT, this.clock.now() + Math.max(0, obs.pauseMs));
    } else {
      this.probing = false;
      if (isCount(obs.remaining)) {
        const remaining = Math.floor(obs.remaining);
        this.foreignUsage.add({
          sentAt: rec.t,
          foreign: Math.max(0, this.limit - remaining - this.sends.countedAt(rec.t)),
          ambiguous: this.sends.leftJustBefore(rec.t),
        });
        this.limitReading.add(rec.t, remaining, this.limit, (from, to) => this.sends.between(from, to));
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
    this.sends.restamp(ticket.id, t);
  }

  /** The request never reached the server (no connection could be made): it does not count as sent. */
  unsent(ticket: Ticket): void {
    if (this.sends.drop(ticket.id)) this.kick();
  }

  /** The request failed without a response (network error). It still counts as sent. */
  release(ticket: Ticket): void {
    if (this.sends.settle(ticket.id, 'failed')) this.kick();
  }

  /** After a 429 with Retry-After: nothing is sent before clock time `t`. */
  pauseUntil(t: number): void {
    if (t > this.pausedUntilT) {
      this.pausedUntilT = t;
      this.kick();
    }
  }

  /**
   * Sends of an earlier run with this key, `agesMs` ago: they count in our window as our own, so
   * a run started right after another neither sends into a window that one filled nor takes its
   * sends for another client's. `limit`: the key's limit that run learned.
   */
  seedEarlierSends(agesMs: readonly number[], limit?: number): void {
    if (isCount(limit) && limit >= 1) this.limit = Math.floor(limit);
    const t = this.clock.now();
    for (const age of [...agesMs].sort((a, b) => b - a)) {
      if (!(age >= 0) || age >= this.windowMs + this.guardMs) continue;
      const rec = this.sends.add(t - age);
      this.sends.settle(rec.id, 'ok');
    }
    this.kick();
  }

  /** How long ago each of our sends still in the window went (429s left out: the server did not count them). */
  recentSendAges(): number[] {
    const t = this.clock.now();
    return this.sends
      .inWindow(t)
      .filter((r) => r.state !== 'rejected')
      .map((r) => t - r.t);
  }

  /** Same as `pauseUntil(now() + ms)`. */
  pauseFor(ms: number): void {
    this.pauseUntil(this.clock.now() + Math.max(0, ms));
  }

  stats(): RateLimiterStats {
    const t = this.clock.now();
    const foreign = this.limitReading.refill ? this.limitReading.foreign(this.limitReading.read(t), this.limit) : this.foreignEstimate(t);
    const reserve = this.reserve;
    // A send still connecting is in flight, not yet in the server's window (it may never be).
    const reached = this.sends.inWindow(t).filter((s) => s.reached);
    return {
      sent: this.sentCount,
      inWindow: reached.length,
      leaveInMs: reached.map((s) => Math.max(0, s.t + this.windowMs + this.guardMs - t)),
      inFlight: this.sends.inFlight,
      waiting: this.queue.length,
      limit: this.limit,
      foreign,
      reserve,
      budget: Math.max(0, this.budgetFor(foreign, reserve)),
      rejected: this.rejectedCount,
      pausedUntil: this.pausedUntilT > t ? this.pausedUntilT : 0,
      reading: this.limitReading.refill ? 'refill' : 'window',
      waitingFor: this.queue.length > 0 && this.lastDecision && !this.lastDecision.d.ok ? this.lastDecision.d.reason : null,
      waitMs:
        this.queue.length > 0 && this.lastDecision && !this.lastDecision.d.ok
          ? Math.max(0, this.lastDecision.at + this.lastDecision.d.waitMs - t)
          : 0,
    };
  }

  // ---------------------------------------------------------------------------------------------

  private budgetFor(foreign: number, reserve: number): number {
    return Math.min(this.maxRpm ?? Infinity, this.limit, this.limit - foreign - reserve);
  }

  private get reserve(): number {
    return this.reserveOpt ?? (this.limit >= 10 ? 1 : 0);
  }

  /** The foreign estimate that sizes the budget (see foreign-usage.ts). */
  private foreignEstimate(t: number): number {
    return this.foreignUsage.estimate(t, this.limit - 1 - this.reserve);
  }

  private decide(t: number): Decision {
    if (t < this.pausedUntilT) return { ok: false, waitMs: this.pausedUntilT - t, reason: 'retry-after' };
    const last = this.sends.last;
    const spacing = this.minSpacingMs;
    if (last && t < last.t + spacing) return { ok: false, waitMs: last.t + spacing - t, reason: 'spacing' };
    this.sends.prune(t);
    const win = this.sends.inWindow(t);
    const n = win.length;
    const cap = Math.min(this.maxRpm ?? Infinity, this.limit);
    const reading = this.limitReading.read(t);
    const foreign = this.limitReading.refill ? this.limitReading.foreign(reading, this.limit) : this.foreignEstimate(t);
    if (foreign < this.limit / 3 || this.foreignUsage.isEmpty(t)) this.bigForeignSince = undefined;
    else this.bigForeignSince ??= t;
    const budget = this.budgetFor(foreign, this.reserve);
    // In refill mode the refill itself paces us. A large foreign level that never moved is no
    // client to make room for (an earlier run's requests, or a bucket's small size): pacing would
    // only hide how the server frees its slots.
    const shared = !this.limitReading.refill && !this.staticForeign(foreign, reading) && this.foreignUsage.anotherClientSeen(t, this.limit - 1 - this.reserve);
    const paceWait = this.pacer.wait(t, budget, this.pace === 'always' || (this.pace === 'auto' && shared));
    if (paceWait > 0) return { ok: false, waitMs: paceWait, reason: 'other-client' };
    const leaveAt = (k: number): number => win[k]!.t + this.windowMs + this.guardMs - t;

    if (n >= cap) {
      // Our own window is full: sleep until the send that must leave has left.
      return { ok: false, waitMs: leaveAt(n - cap), reason: 'own-window' };
    }
    if (n >= budget && !(this.limitReading.refill && n < cap) && !this.mayProbe(t, reading, foreign)) {
      // The reserve or foreign usage blocks us: our own expiries free a slot, and so may a lower
      // estimate as samples age (hence the poll; responses wake us anyway).
      const k = n - budget;
      const ownWait = budget > 0 && k < n ? leaveAt(k) : Infinity;
      return { ok: false, waitMs: Math.min(ownWait, foreign > 0 ? this.pollMs : this.windowMs), reason: foreign > 0 ? 'other-client' : 'own-window' };
    }
    if (this.limitReading.refill) {
      const wait = this.limitReading.refillWait(t, reading, this.limit, this.reserve, (from) => this.sends.between(from, Infinity));
      if (wait > 0) return { ok: false, waitMs: wait, reason: 'refill' };
    }
    // After a quiet spell, with another client about, one request looks first (see the header).
    if (shared && last && t - Math.max(last.t, this.lastResponseAt) > this.quietMs) this.probing = true;
    if ((!this.learned || this.probing) && this.sends.awaitingRecent(t)) {
      // One request at a time until a response tells the limit (at the start) or how full the
      // server is. Responses and releases wake us; the timeout is a safety net.
      return { ok: false, waitMs: this.windowMs, reason: 'first-response' };
    }
    return { ok: true };
  }

  /**
   * A foreign level of a third of the limit or more, first seen less than a window ago: what we
   * saw may be requests made before we started, which leave within a window, or a bucket's small
   * size. After a window it is a client. (A small share costs little to wait out, and a probe
   * would take the slot kept free for it.)
   */
  private staticForeign(foreign: number, r: RefillReading): boolean {
    const since = this.bigForeignSince;
    return foreign >= this.limit / 3 && since !== undefined && this.clock.now() - since < this.windowMs;
  }

  /**
   * Blocked by what looks like another client's usage, but none has been seen sending: the level
   * may be an earlier run's requests leaving the window, or a bucket refilling. One request at a
   * time, at the sustainable pace and only while the latest Remaining shows a free slot, finds
   * out; without it the limiter would wait for a client that is not there.
   */
  private mayProbe(t: number, r: RefillReading, foreign: number): boolean {
    if (this.limitReading.refill || !this.staticForeign(foreign, r) || this.sends.awaitingRecent(t)) return false;
    const latest = this.limitReading.latest;
    if (!latest) return false;
    const last = this.sends.last;
    const gap = (2 * this.windowMs) / this.limit;
    if (last && t - Math.max(last.t, this.lastResponseAt) < gap) return false;
    const edge = this.windowMs + this.guardMs;
    const free = latest.remaining - this.sends.between(latest.sentAt, Infinity) + this.sends.between(latest.sentAt - edge, t - edge);
    // A bucket of one or two tokens always shows 0: until a 429 says the server is really full,
    // a probe may go at 0 too (at most one such 429 per run).
    return free >= (this.rejectedCount === 0 ? 0 : 1);
  }

  private record(t: number): Ticket {
    this.pacer.sent(t);
    this.sentCount++;
    const rec = this.sends.add(t);
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
      this.lastDecision = { at: t, d };
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
