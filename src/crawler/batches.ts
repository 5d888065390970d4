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
  let flushing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    const taken = batch;
    batch = [];
    lastFlush = Date.now();
    flushing = o.flush(taken);
    return flushing;
  };
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !o.stopped()) {
      const result = await o.work(items[next++]!);
      if (result !== null) batch.push(result);
      o.done?.(result);
      if (batch.length >= o.batchSize || Date.now() - lastFlush >= o.flushIntervalMs) await flush();
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, items.length) }, worker));
  await flushing;
  if (batch.length > 0 || o.mustFlush?.()) await flush();
}
