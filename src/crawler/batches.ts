// A fixed pool of workers takes the items in turn and hands what they produce to `flush` in
// batches: rather than a queued closure and promise per item (100,000 pending details on a first
// sync), and never more than one batch in memory beyond the one being written (back-pressure).

export interface BatchOptions<T, R> {
  concurrency: number;
  batchSize: number;
  /** flush at least this often while results arrive */
  flushIntervalMs: number;
  /** stop taking items (the results so far are still flushed) */
  stopped: () => boolean;
  work: (item: T) => Promise<R | null>;
  /** writes a batch; also called with an empty batch when `mustFlush` says so at the end */
  flush: (batch: R[]) => Promise<void>;
  /** whether a last, possibly empty, batch must still be written (e.g. errors recorded meanwhile) */
  mustFlush?: () => boolean;
  /** after each item, before its batch may be flushed */
  done?: (result: R | null) => void;
}

export async function inBatches<T, R>(items: readonly T[], o: BatchOptions<T, R>): Promise<void> {
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
    flushing = flushing.then(() => o.flush(taken));
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
      const result = await o.work(items[next++]!);
      if (result !== null) {
        batch.push(result);
        arm();
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
  }
}
