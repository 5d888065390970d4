// The server's clock as its `Date` headers show it, against this machine's. A Date header has
// whole seconds and is written somewhere between the request's send and its response's arrival,
// so each response bounds the skew to an interval; the intervals of a run's responses narrow it.

/** Skew beyond this is said (a warning line); within it the two clocks count as agreeing. */
export const SKEW_WARN_MS = 60_000;

export class ServerClock {
  /** bounds (ms) of server time minus this machine's time; null before a readable Date header */
  private lo: number | null = null;
  private hi: number | null = null;

  /** One response's Date header, with this machine's wall clock at its send and at its arrival. */
  observe(dateHeader: string | undefined, sentAtMs: number, receivedAtMs: number): void {
    const serverMs = dateHeader === undefined ? NaN : Date.parse(dateHeader);
    if (!Number.isFinite(serverMs)) return;
    const lo = serverMs - receivedAtMs;
    const hi = serverMs + 1000 - sentAtMs;
    // A server whose clock jumped (or a reading that contradicts the last) starts the interval again.
    if (this.lo === null || this.hi === null || lo > this.hi || hi < this.lo) {
      this.lo = lo;
      this.hi = hi;
      return;
    }
    this.lo = Math.max(this.lo, lo);
    this.hi = Math.min(this.hi, hi);
  }

  /**
   * Server time minus this machine's (ms): the smallest skew the Date headers allow, so 0 when the
   * clocks agree within a header's precision; null when no response carried a readable Date.
   */
  skewMs(): number | null {
    if (this.lo === null || this.hi === null) return null;
    if (this.lo > 0) return this.lo;
    if (this.hi < 0) return this.hi;
    return 0;
  }

  /** The server's now, read off this machine's clock (this machine's own now without a Date header). */
  serverNow(localNow: Date): Date {
    return new Date(localNow.getTime() + (this.skewMs() ?? 0));
  }
}
