// Pacing while another client uses the key: sends are spread at the budget per window (a small
// token bucket of `burst`), the sustainable rate anyway. Refilling each slot as it leaves would
// repeat our first window's burst every window and meet the other client's requests in a wave;
// spread out, it always finds a free slot. A client seen before our first window ends is paced for
// from the start: on a fixed window it opened, a burst of ours would take what is left of it.

export class Pacer {
  private firstSendAt: number | undefined;
  /** NaN while not pacing */
  private tokens = Number.NaN;
  private tokensAt = 0;
  /** another client was seen before our first window ended: pace it too */
  private fromStart = false;

  constructor(
    private readonly windowMs: number,
    private readonly burst: number,
  ) {}

  /** How long the next send must wait (0: it may go). Not pacing (`on` false) resets the bucket. */
  wait(t: number, budget: number, on: boolean): number {
    if (!on) {
      this.tokens = Number.NaN;
      return 0;
    }
    if (this.firstSendAt === undefined || t - this.firstSendAt < this.windowMs) this.fromStart = true;
    if (budget <= 0 || (!this.fromStart && (this.firstSendAt === undefined || t - this.firstSendAt < this.windowMs))) return 0;
    const rate = budget / this.windowMs;
    if (Number.isNaN(this.tokens)) {
      this.tokens = 1;
      this.tokensAt = t;
    }
    this.tokens = Math.min(this.burst, this.tokens + (t - this.tokensAt) * rate);
    this.tokensAt = t;
    // (a tolerance, or float rounding could make us wake up for ever-smaller waits)
    return this.tokens >= 1 - 1e-6 ? 0 : Math.max(1, (1 - this.tokens) / rate);
  }

  sent(t: number): void {
    this.firstSendAt ??= t;
    if (!Number.isNaN(this.tokens)) this.tokens -= 1;
  }
}
