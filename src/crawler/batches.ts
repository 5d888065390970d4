// A fixed pool of workers takes the items in turn and hands what they produce to `flush` in
// batches: rather than a queued closure and promise per item (100,000 pending details on a first
// sync), and never more than one batch in memory beyond the one being written (back-pressure).

/**
 * Results held in memory, fetched but not yet written, counted across every inBatches that shares
 * it: a worker takes a slot before its item and the slot comes back once the batch holding its
 * result is written. Many crawls feeding one writer otherwise each hold a minute's burst of results.
 * Each crawl holds at most its share of the cap (split between the crawls holding or waiting): a
 * worker takes its slot before its key's rate limiter lets it send, and 100 crawls of 32 workers
 * left the slots with the keys out of budget for the minute while the others' budget went unused.
 * Freed slots go to the waiting crawls in turn, not first come first served: a crawl that started
 * late would otherwise wait behind every worker of those that started before it.
 */
export class HeldSlots {
  private free: number;
  /** per crawl holding or waiting for slots: how many it holds, its workers waiting */
  private readonly crawls = new Map<object, { held: number; waiting: (() => void)[] }>();
  /** the crawls with workers waiting, in turn */
  private readonly turns: object[] = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  take(crawl: object): Promise<void> | undefined {
    const own = this.own(crawl);
    if (this.free > 0 && own.waiting.length === 0 && this.belowShare(own)) {
      this.grant(own);
      return undefined;
    }
    return new Promise<void>((resolve) => {
      if (own.waiting.length === 0) this.turns.push(crawl);
      own.waiting.push(resolve);
    });
  }

  /** Gives back `n` slots `crawl` took. */
  give(crawl: object, n: number): void {
    if (n <= 0) return;
    const own = this.own(crawl);
    own.held -= n;
    this.free += n;
    this.forget(crawl, own);
    // to the waiting crawls in turn, passing over those at their share
    for (let passed = 0; this.free > 0 && passed < this.turns.length; ) {
      const next = this.turns.shift()!;
      const theirs = this.crawls.get(next)!;
      if (!this.belowShare(theirs)) {
        this.turns.push(next);
        passed++;
        continue;
      }
      passed = 0;
      const wake = theirs.waiting.shift()!;
      if (theirs.waiting.length > 0) this.turns.push(next);
      this.grant(theirs);
      wake();
    }
  }

  /** slots taken now */
  get held(): number {
    return this.capacity - this.free;
  }

  private own(crawl: object): { held: number; waiting: (() => void)[] } {
    let own = this.crawls.get(crawl);
    if (!own) this.crawls.set(crawl, (own = { held: 0, waiting: [] }));
    return own;
  }

  private forget(crawl: object, own: { held: number; waiting: unknown[] }): void {
    if (own.held <= 0 && own.waiting.length === 0) this.crawls.delete(crawl);
  }

  private belowShare(own: { held: number }): boolean {
    return own.held < Math.ceil(this.capacity / this.crawls.size);
  }

  private grant(own: { held: number }): void {
    this.free--;
    own.held++;
  }
}

export interface BatchOptions<T, R> {
  concurrency: number;
  /** a cap on results held across crawls (see HeldSlots); none when absent */
  slots?: HeldSlots;
  batchSize: number;
  /**
   * Weighs results (`weigh`): a batch is flushed once it weighs `batch`, and no worker takes an
   * item while the results not yet written (the batch and the flushes queued) weigh `held`.
   */
  weight?: { batch: number; held: number; weigh: (result: R) => number };
  /** flush at least this often while results arrive */
  flushIntervalMs: number;
  /** stop taking items (the results so far are still flushed) */
  stopped: () => boolean;
  /** the item and its index in `items` */
  work: (item: T, index: number) => Promise<R | null>;
  /** writes a batch; also called with an empty batch when `mustFlush` says so at the end */
  flush: (batch: R[]) => Promise<void>;
  /** whether a last, possibly empty, batch must still be written (e.g. errors recorded meanwhile) */
  mustFlush?: () => boolean;
  /** after each item, before its batch may be flushed */
  done?: (result: R | null) => void;
}

export async function inBatches<T, R>(items: readonly T[], o: BatchOptions<T, R>): Promise<void> {
  const self = {}; // this crawl, for its turns at the shared slots
  let batch: R[] = [];
  let weight = 0;
  /** weight of the results fetched and not yet written */
  let held = 0;
  let lastFlush = Date.now();
  // Writes go one after another, each after the one before it (the writer serialises them anyway).
  let flushing: Promise<void> = Promise.resolve();
  let failed: { err: unknown } | null = null;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const taken = batch;
    const takenWeight = weight;
    batch = [];
    weight = 0;
    lastFlush = Date.now();
    flushing = flushing.then(() => o.flush(taken)).finally(() => {
      o.slots?.give(self, taken.length);
      held -= takenWeight;
    });
    return flushing;
  };
  // A result waits at most flushIntervalMs for its commit, also when no other result follows it
  // (every worker waiting for rate-limit budget): a timer flushes the batch then.
  const arm = (): void => {
    timer ??= setTimeout(() => {
      timer = undefined;
      if (batch.length > 0) flush().catch((err: unknown) => (failed ??= { err }));
    }, o.flushIntervalMs);
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !o.stopped() && failed === null) {
      // heavy results (long conversations) wait for the writes rather than pile up in memory
      while (o.weight !== undefined && held >= o.weight.held && failed === null) await flushing.catch(() => undefined);
      await o.slots?.take(self);
      if (next >= items.length || o.stopped() || failed !== null) {
        o.slots?.give(self, 1);
        break;
      }
      let result: R | null;
      const index = next++;
      try {
        result = await o.work(items[index]!, index);
      } catch (err) {
        o.slots?.give(self, 1);
        throw err;
      }
      if (result !== null) {
        batch.push(result);
        const w = o.weight?.weigh(result) ?? 0;
        weight += w;
        held += w;
        arm();
      } else {
        o.slots?.give(self, 1);
      }
      o.done?.(result);
      const heavy = o.weight !== undefined && weight >= o.weight.batch;
      if (batch.length >= o.batchSize || heavy || Date.now() - lastFlush >= o.flushIntervalMs) await flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, items.length) }, worker));
    await flushing;
    if (batch.length > 0 || o.mustFlush?.()) await flush();
  } finally {
    clearTimeout(timer);
    o.slots?.give(self, batch.length); // results of a batch never written (the run failed)
    batch = [];
  }
}
