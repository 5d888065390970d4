// Our own sends in send order: which of them the server still counts, and when it lets them go.
// A send stays in our window for windowMs + guardMs from when it left (the API client moves it to
// when undici wrote it to the socket), so that we never count it gone before the server does.

export type SendState = 'pending' | 'ok' | 'rejected' | 'failed';

export interface SendRecord {
  readonly id: number;
  t: number;
  state: SendState;
  /** written to the socket or answered: from then on the server may count it */
  reached: boolean;
}

export class OwnSends {
  /** in time order (restamps keep it so) */
  private list: SendRecord[] = [];
  private readonly pending = new Map<number, SendRecord>();
  private nextId = 1;

  constructor(
    private readonly windowMs: number,
    private readonly guardMs: number,
    /** how far the server's arrival order may differ from our send order */
    private readonly skewMs: number,
    /** how much later than recorded a send of ours may reach the server */
    private readonly lateMs: number,
  ) {}

  get last(): SendRecord | undefined {
    return this.list[this.list.length - 1];
  }

  get inFlight(): number {
    return this.pending.size;
  }

  add(t: number): SendRecord {
    const rec: SendRecord = { id: this.nextId++, t, state: 'pending', reached: false };
    this.list.push(rec);
    this.pending.set(rec.id, rec);
    return rec;
  }

  /** The answer (or failure) of a pending send; undefined when it was settled already. */
  settle(id: number, state: Exclude<SendState, 'pending'>): SendRecord | undefined {
    const rec = this.pending.get(id);
    if (!rec) return undefined;
    this.pending.delete(id);
    rec.state = state;
    rec.reached = true;
    return rec;
  }

  /** A pending send that never reached the server (no connection was made): it leaves our window. */
  drop(id: number): boolean {
    const rec = this.settle(id, 'failed');
    if (!rec) return false;
    const i = this.list.lastIndexOf(rec);
    if (i >= 0) this.list.splice(i, 1);
    return true;
  }

  /** A pending send left only at `t`: it has reached the server, and its record moves there. */
  restamp(id: number, t: number): void {
    const rec = this.pending.get(id);
    if (!rec) return;
    rec.reached = true;
    if (t <= rec.t) return;
    const from = this.list.lastIndexOf(rec);
    if (from < 0) return;
    this.list.splice(from, 1);
    rec.t = t;
    let i = this.list.length;
    while (i > 0 && this.list[i - 1]!.t > t) i--;
    this.list.splice(i, 0, rec);
  }

  /** Sends (any state) still inside our window at `t`: sent after t − windowMs − guard. */
  inWindow(t: number): SendRecord[] {
    return this.list.slice(this.firstAfter(t - this.windowMs - this.guardMs));
  }

  /** Sends not rejected with from < t <= to. */
  between(from: number, to: number): number {
    let n = 0;
    for (let i = this.firstAfter(from); i < this.list.length && this.list[i]!.t <= to; i++) {
      if (this.list[i]!.state !== 'rejected') n++;
    }
    return n;
  }

  /**
   * How many of ours the server may have counted when the request sent at `s` arrived: sends in
   * (s − windowMs − skew, s + skew], generously, so that what the server counted beyond them is a
   * lower bound of another client's use. Rejected sends are not counted by the server; sends that
   * failed without an answer are (they reached it).
   */
  countedAt(s: number): number {
    let n = 0;
    for (let i = this.list.length - 1; i >= 0; i--) {
      const r = this.list[i]!;
      if (r.t > s + this.skewMs) continue;
      if (r.t <= s - this.windowMs - this.skewMs) break;
      if (r.state !== 'rejected') n++;
    }
    return n;
  }

  /** One of our sends (not rejected) left our window in (s − lateMs, s − skew] before `s`'s window. */
  leftJustBefore(s: number): boolean {
    const to = s - this.windowMs - this.skewMs;
    for (let i = this.firstAfter(s - this.windowMs - this.lateMs); i < this.list.length; i++) {
      const r = this.list[i]!;
      if (r.t > to) return false;
      if (r.state !== 'rejected') return true;
    }
    return false;
  }

  /** A send within the last window is still unanswered (older ones tell nothing soon). */
  awaitingRecent(t: number): boolean {
    for (const rec of this.pending.values()) if (rec.t > t - this.windowMs) return true;
    return false;
  }

  /** Forgets sends no question asks about any more. */
  prune(t: number): void {
    let keepFrom = t - this.windowMs - this.guardMs;
    const oldestPending = this.pending.values().next();
    // (the limit reading counts our sends that left the window between two samples up to a
    // quarter window apart: keep that much more around an unanswered send)
    if (!oldestPending.done) keepFrom = Math.min(keepFrom, oldestPending.value.t - this.windowMs * 1.25 - this.guardMs - Math.max(this.lateMs, this.skewMs));
    let i = 0;
    while (i < this.list.length && this.list[i]!.t <= keepFrom) i++;
    if (i > 64 || i === this.list.length) this.list.splice(0, i);
  }

  /** Index of the first send with t > `cutoff` (binary search). */
  private firstAfter(cutoff: number): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.list[mid]!.t > cutoff) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
