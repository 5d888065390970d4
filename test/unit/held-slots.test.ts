// Crawls sharing one writer share a cap on the details they hold, fetched but not yet written
// (HeldSlots). Pure: inBatches with a slow flush, no HTTP or database.
import { describe, expect, it } from 'vitest';
import { HeldSlots, inBatches } from '../../src/crawler/batches.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('HeldSlots across inBatches', () => {
  it('two crawls never hold more results than the cap, and every result is written once', async () => {
    const slots = new HeldSlots(6);
    let held = 0;
    let most = 0;
    const written: string[] = [];
    const crawl = (name: string) =>
      inBatches(
        Array.from({ length: 60 }, (_, i) => `${name}${i}`),
        {
          concurrency: 8,
          batchSize: 4,
          flushIntervalMs: 20,
          slots,
          stopped: () => false,
          // every seventh item yields nothing (a failed fetch): its slot comes back at once
          work: async (item) => {
            await pause(1);
            if (Number(item.slice(1)) % 7 === 0) return null;
            held++;
            most = Math.max(most, held);
            return item;
          },
          flush: async (batch) => {
            await pause(5);
            written.push(...batch);
            held -= batch.length;
          },
        },
      );
    await Promise.all([crawl('a'), crawl('b')]);
    const expected = ['a', 'b'].flatMap((n) => Array.from({ length: 60 }, (_, i) => i).filter((i) => i % 7 !== 0).map((i) => `${n}${i}`));
    expect(written.sort()).toEqual(expected.sort());
    expect(most).toBeLessThanOrEqual(6);
    expect(most).toBeGreaterThan(3);
    expect(slots.held).toBe(0);
  });

  it('a crawl whose write fails gives its slots back, and the other finishes', async () => {
    const slots = new HeldSlots(4);
    const failing = inBatches([1, 2, 3, 4, 5, 6], {
      concurrency: 2,
      batchSize: 2,
      flushIntervalMs: 10,
      slots,
      stopped: () => false,
      work: async (n) => n,
      flush: async () => {
        throw new Error('disk full');
      },
    });
    await expect(failing).rejects.toThrow('disk full');
    const written: number[] = [];
    await inBatches([7, 8, 9, 10, 11], {
      concurrency: 3,
      batchSize: 2,
      flushIntervalMs: 10,
      slots,
      stopped: () => false,
      work: async (n) => n,
      flush: async (batch) => {
        written.push(...batch);
      },
    });
    expect(written.sort((a, b) => a - b)).toEqual([7, 8, 9, 10, 11]);
    expect(slots.held).toBe(0);
  });

  it('freed slots go to the waiting crawls in turn, so a crawl that asks late is not served last', async () => {
    const slots = new HeldSlots(1);
    const early = {};
    const late = {};
    const served: string[] = [];
    expect(slots.take(early)).toBeUndefined();
    const waits = [
      ...[1, 2, 3].map((n) => slots.take(early)!.then(() => served.push(`early ${n}`))),
      slots.take(late)!.then(() => served.push('late 1')),
    ];
    // each give is by the crawl holding the slot
    for (const holder of [early, early, late, early]) {
      slots.give(holder, 1);
      await Promise.resolve();
    }
    await Promise.all(waits);
    expect(served).toEqual(['early 1', 'late 1', 'early 2', 'early 3']);
    slots.give(early, 1);
    expect(slots.held).toBe(0);
  });

  it('a crawl whose workers wait for their key to have budget holds only its share, and the others go on', async () => {
    const slots = new HeldSlots(4);
    let budget!: () => void;
    const outOfBudget = new Promise<void>((r) => (budget = r));
    // this crawl's first 4 items are sent at once; then its key is out of budget until budget()
    const blocked = inBatches(
      Array.from({ length: 20 }, (_, i) => i),
      {
        concurrency: 8,
        batchSize: 4,
        flushIntervalMs: 10,
        slots,
        stopped: () => false,
        work: async (n) => {
          if (n >= 4) await outOfBudget;
          return n;
        },
        flush: async () => undefined,
      },
    );
    const written: number[] = [];
    const other = inBatches(
      Array.from({ length: 30 }, (_, i) => i),
      {
        concurrency: 8,
        batchSize: 3,
        flushIntervalMs: 10,
        slots,
        stopped: () => false,
        work: async (n) => {
          await pause(1);
          return n;
        },
        flush: async (batch) => {
          written.push(...batch);
        },
      },
    );
    // the other crawl writes everything while this one's workers still wait for budget
    const outcome = await Promise.race([other.then(() => 'written'), pause(3_000).then(() => 'starved')]);
    expect(outcome).toBe('written');
    expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    budget();
    await Promise.all([blocked, other]);
    expect(slots.held).toBe(0);
  });
});
