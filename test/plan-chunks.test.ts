// A run plans its details a chunk at a time (a plan of every pending id ran out of memory over a
// large store). Each plan leaves out what the run already tried, so every pending conversation is
// asked for once: also those whose detail failed, came back unusable, or showed it still open.
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import type { HostileKind } from '../src/simulator/index.js';
import { generateScaleData } from '../src/bench/scale-data.js';
import { Database } from '../src/store/database.js';
import { pendingDetails } from '../src/store/pending-details.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('plan-chunks');
const BROKEN: HostileKind[] = ['transcript_object', 'bad_date', 'deep', 'html200'];

describe('details planned in chunks', () => {
  it('asks for every pending detail once, failures and open conversations included, and stores each', async () => {
    const sim = await simulator({ seed: 53, conversations: 250, rateLimit: 100_000 });
    const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
    const open = sim.dataset.conversations.length - finished.length;
    expect(open).toBeGreaterThan(0);
    BROKEN.forEach((kind, i) => sim.breakConversation(finished[5 + i * 13]!.id, kind));
    const dbPath = tempDb();

    const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, planChunk: 40, maxRetries: 0, timeoutMs: 1_500 });

    const asked = new Map<string, number>();
    for (const r of sim.requestLog) {
      if (r.client === 'key' && r.kind === 'conversation_detail') asked.set(r.path, (asked.get(r.path) ?? 0) + 1);
    }
    expect(asked.size).toBe(250);
    expect([...asked.values()].filter((n) => n !== 1)).toEqual([]);
    // the maintenance page is an error (the next run asks again), the other three are set aside
    expect(summary.status).toBe('errors');
    expect(summary.detailsFetched).toBe(250 - BROKEN.length);
    expect(summary.errors).toBe(1);
    expect(summary.detailsSetAside).toBe(3);

    await Database.with(dbPath, async (db) => {
      await expectNoDuplicateKeys(db);
      const stored = await db.one<{ usable: number; open: number }>(
        `SELECT count(*) FILTER (WHERE invalid_reason IS NULL)::INTEGER AS usable,
                count(*) FILTER (WHERE invalid_reason IS NULL AND NOT is_final)::INTEGER AS open
         FROM raw_conversations`,
      );
      expect(stored).toEqual({ usable: 250 - BROKEN.length, open });
    });
  });

  it('plans a large store part by part, in the same order and with the same stored times as in one join', async () => {
    await Database.with(tempDb(), async (db) => {
      await generateScaleData(db, 3_000, { space: 'acme', listed: true });
      // pending: details never stored, stored unfinished, stored unusable
      await db.run(`DELETE FROM raw_conversations WHERE hash(id) % 5 = 0`);
      await db.run(`UPDATE raw_conversations SET is_final = false WHERE hash(id) % 5 = 1`);
      await db.run(`UPDATE raw_conversations SET invalid_reason = 'unusable', listing_changed = true WHERE hash(id) % 5 = 2`);
      for (const firstOutcomes of [[], ['transferred', 'failed']]) {
        const whole = await pendingDetails(db, { firstOutcomes, limit: 700 });
        const parted = await pendingDetails(db, { firstOutcomes, limit: 700, partRows: 250 });
        expect(whole.ids.length).toBe(700);
        expect(parted.ids).toEqual(whole.ids);
        expect(parted.ids.map((_, i) => parted.storedAt(i))).toEqual(whole.ids.map((_, i) => whole.storedAt(i)));
      }
    });
  });
});
