// inBatches (src/crawler/batches.ts) bounds what a crawl holds by weight: heavy results are
// flushed early, and no item is taken while the results not yet written weigh the cap.
import { describe, expect, it } from 'vitest';
import { inBatches } from '../../src/crawler/batches.js';

describe('inBatches by weight', () => {
  it('flushes a batch once it weighs its cap, and holds no more than the cap (plus the items in flight) unwritten', async () => {
    // 200 items, every 10th a heavy one; writes are slow, fetches fast
    const weights = Array.from({ length: 200 }, (_, i) => (i % 10 === 0 ? 5_000 : 10));
    let unwritten = 0;
    let mostUnwritten = 0;
    const batches: number[][] = [];
    await inBatches<number, number>(weights, {
      concurrency: 8,
      batchSize: 1_000,
      flushIntervalMs: 60_000,
      weight: { batch: 6_000, held: 12_000, weigh: (w) => w },
      stopped: () => false,
      work: async (w) => {
        await new Promise((r) => setTimeout(r, 1));
        unwritten += w;
        mostUnwritten = Math.max(mostUnwritten, unwritten);
        return w;
      },
      flush: async (batch) => {
        await new Promise((r) => setTimeout(r, 20));
        batches.push(batch);
        unwritten -= batch.reduce((a, b) => a + b, 0);
      },
    });
    expect(batches.flat().sort((a, b) => a - b)).toEqual([...weights].sort((a, b) => a - b));
    // every batch but the last was flushed for its weight, not its count
    for (const b of batches.slice(0, -1)) expect(b.reduce((a, c) => a + c, 0)).toBeGreaterThanOrEqual(6_000);
    // the cap, plus what the workers had in flight when it was reached
    expect(mostUnwritten).toBeLessThanOrEqual(12_000 + 8 * 5_000);
    expect(mostUnwritten).toBeGreaterThan(6_000);
  });
});
