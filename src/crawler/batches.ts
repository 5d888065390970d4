// A fixed pool of workers takes the items in turn and hands what they produce to `flush` in
// batches: rather than a queued closure and promise per item (100,000 pending details on a first
// sync), and never more than one batch in memory beyond the one being written (back-pressure).

/**
 * Results held in memory, fetched but not yet written, counted across every inBatches that shares
 * it: a worker takes a slot before its item and the slot comes back once the batch holding its
 * result is written. Many crawls feeding one writer otherwise each hold a minute's burst of results.
 * Freed slots go to the waiting crawls in turn, not first come first served: a crawl that started
 * late would otherwise wait behind every worker of those that started before it.
 */
export class HeldSlots {
  private free: number;
  /** per crawl, its workers waiting for a slot; a crawl is in `turns` while it has any */
  private readonly waiting = new Map<object, (() => void)[]>();
  private readonly turns: object[] = [];

  constructor(readonly capacity: number) {
    this.free = capacity;
  }

  take(crawl: object): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(crawl);
      if (queue) queue.push(resolve);
      else {
        this.waiting.set(crawl, [resolve]);
        this.turns.push(crawl);
      }
    });
  }

  give(n: number): void {
    for (let i = 0; i < n; i++) {
      const crawl = this.turns.shift();
      if (crawl === undefined) {
        this.free++;
        continue;
      }
      const queue = this.waiting.get(crawl)!;
      const next = queue.shift()!;
      if (queue.length > 0) this.turns.push(crawl);
      else this.waiting.delete(crawl);
      next();
    }
  }

  /** slots taken now */
  get held(): number {
    return this.capacity - this.free;
  }
}

export interface BatchOptions<T, R> {
  concurrency: number;
  /** a cap on results held across crawls (see HeldSlots); none when absent */
  slots?: HeldSlots;
  batchSize: number;
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
  let lastFlush = Date.now();
  // Writes go one after another, each after the one before it (the writer serialises them anyway).
  let flushing: Promise<void> = Promise.resolve();
  let failed: { err: unknown } | null = null;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    const taken = batch;
    batch = [];
    lastFlush = Date.now();
    flushing = flushing.then(() => o.flush(taken)).finally(() => o.slots?.give(taken.length));
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
      await o.slots?.take(self);
      if (next >= items.length || o.stopped() || failed !== null) {
        o.slots?.give(1);
        break;
      }
      let result: R | null;
      const index = next++;
      try {
        result = await o.work(items[index]!, index);
      } catch (err) {
        o.slots?.give(1);
        throw err;
      }
      if (result !== null) {
        batch.push(result);
        arm();
      } else {
        o.slots?.give(1);
      }
      o.done?.(result);
      if (batch.length >= o.batchSize || Date.now() - lastFlush >= o.flushIntervalMs) await flush();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, items.length) }, worker));
    await flushing;
    if (batch.length > 0 || o.mustFlush?.()) await flush();
  } finally {
    clearTimeout(timer);
    o.slots?.give(batch.length); // results of a batch never written (the run failed)
    batch = [];
  }
}
