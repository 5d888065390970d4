// What other clients of the same key spend, as the responses show it.
//
// A response tells the server's count when our request arrived: used = limit − Remaining. What
// our own sends in the window before it do not explain (OwnSends.countedAt) is another client's:
// one sample. The estimate that sizes our budget is the MAX over the samples of the last window,
// not the latest or an average: one too low costs a 429 (for us, or for the other client, which
// then looks smaller: a ratchet), one too high costs one slot; and a window is how long the server
// keeps counting a foreign request.
//
// Whether another client is about at all (which switches pacing on) asks for more: the server may
// stamp a send of ours later than we did, and a window later the sample that meets it shows one
// "foreign" request that is ours. Such a sample is ambiguous (one of our sends left our window
// just before it); a real foreign request stays counted for a window and shows in later samples
// too, so an ambiguous sample counts one less unless the first sample `confirmMs` or more after
// it shows as much.

export interface Sample {
  /** send time of the request the sample came from */
  sentAt: number;
  /** lower bound of the foreign requests the server counted when that request arrived */
  foreign: number;
  /** a send of ours left our window just before: the server may still have counted it */
  ambiguous: boolean;
}

export class ForeignUsage {
  /** sorted by sentAt, the last `horizonMs` */
  private samples: Sample[] = [];
  private latest: Sample | undefined;

  constructor(
    private readonly horizonMs: number,
    private readonly confirmMs: number,
  ) {}

  add(s: Sample): void {
    // responses come back out of order; keep the list sorted by send time
    let i = this.samples.length;
    while (i > 0 && this.samples[i - 1]!.sentAt > s.sentAt) i--;
    this.samples.splice(i, 0, s);
    if (!this.latest || s.sentAt >= this.latest.sentAt) this.latest = s;
  }

  /** No sample within the horizon. */
  isEmpty(t: number): boolean {
    return this.recent(t).length === 0;
  }

  /**
   * The estimate that sizes the budget. Without a recent sample, the last one's level stands (a
   * steady client has most likely replaced what it counted), but at most `cap`, so that a request
   * can go and find out.
   */
  estimate(t: number, cap: number): number {
    const samples = this.recent(t);
    if (samples.length === 0) return this.latest ? Math.min(this.latest.foreign, cap) : 0;
    let max = 0;
    for (const s of samples) max = Math.max(max, s.foreign);
    return max;
  }

  /** Another client uses the key: the level the samples show beyond doubt is at least one. */
  anotherClientSeen(t: number, cap: number): boolean {
    const samples = this.recent(t);
    return (samples.length > 0 ? foreignLevel(samples, this.confirmMs) : this.estimate(t, cap)) >= 1;
  }

  private recent(t: number): Sample[] {
    const cutoff = t - this.horizonMs;
    let i = 0;
    while (i < this.samples.length && this.samples[i]!.sentAt < cutoff) i++;
    if (i > 0) this.samples.splice(0, i);
    return this.samples;
  }
}

/**
 * The level of foreign usage the samples (sorted by send time) show beyond doubt: their max,
 * except that an ambiguous sample counts one less unless the first sample sent `confirmMs` or more
 * after it shows as much.
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
