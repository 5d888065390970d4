// The whole write path against random mixes of real-world data: for each seed the simulator
// draws long conversations, hard text, type drift and deletions, two syncs run over HTTP into a
// real DuckDB file (the second after more conversations vanish), and every listed conversation
// must end stored exactly, coerced, set aside or deleted, as the simulator's truth says. Seed
// 101 runs the writer under a 12 MB cap, so writes must split and retry to get through.
// `npm run bench -- --only realdata` runs more seeds.
import { afterAll, describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { Rng } from '../src/simulator/index.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatchesTruth } from './support/store-vs-truth.js';

const SEEDS = [101, 102, 104];
const { simulator, tempDb } = scratch('real-data-property', { rateLimit: 100_000 });
const ran: string[] = [];

afterAll(() => {
  console.log(`real-data property test, seeds run: ${ran.join('; ')}`);
});

describe('real data, random mixes', () => {
  it.each(SEEDS)('seed %i: no run fails, and listed = exact + coerced + set aside + deleted, each as the truth says', async (seed) => {
    const rng = new Rng(seed);
    const realData = {
      long: rng.next() * 0.05,
      longTurns: [1_000, 4_000] as [number, number],
      text: 0.05 + rng.next() * 0.25,
      drift: 0.05 + rng.next() * 0.25,
      deleted: rng.next() * 0.08,
    };
    const writerMemoryLimit = seed % 4 === 1 ? '12MB' : undefined;
    const sim = await simulator({ seed, conversations: 120, realData });
    const ids = sim.dataset.conversations.map((c) => c.id);
    const dbPath = tempDb();

    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, writerMemoryLimit });
    expect(first.status, `seed ${seed}, first run`).toBe('ok');
    const firstTruth = ids.map((id) => sim.realData.truth(id).expect);
    const firstCount = (outcome: string) => firstTruth.filter((e) => e === outcome).length;
    expect([first.detailsCoerced, first.detailsSetAside, first.conversationsDeleted], `seed ${seed}: first run's counts`).toEqual([
      firstCount('coerced'),
      firstCount('set_aside'),
      firstCount('deleted'),
    ]);

    // two stored conversations vanish before the second run, which lists everything again
    const storedOnes = ids.filter((id) => ['exact', 'coerced'].includes(sim.realData.truth(id).expect) && sim.dataset.record(id)!.summary.outcome !== null);
    const vanished = [storedOnes[Math.floor(rng.next() * storedOnes.length)]!, storedOnes.at(-1)!];
    sim.realData.vanish(vanished);
    const before = sim.requestLog.length;
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, writerMemoryLimit, full: true });
    expect(second.status, `seed ${seed}, second run`).toBe('ok');
    const open = new Set(sim.dataset.conversations.filter((c) => c.outcome === null).map((c) => c.id));
    const askedAgain = sim.requestLog
      .slice(before)
      .filter((r) => r.client === 'key' && r.kind === 'conversation_detail')
      .map((r) => r.path.split('/').at(-1)!)
      .filter((id) => !open.has(id));
    expect(askedAgain, `seed ${seed}: details asked again`).toEqual([]);

    const counts = await expectStoreMatchesTruth(dbPath, sim, ids);
    expect(counts.exact + counts.coerced + counts.set_aside + counts.deleted).toBe(ids.length);
    expect(second.conversationsDeleted, `seed ${seed}: vanished`).toBe(vanished.length);
    expect(first.conversationsDeleted + second.conversationsDeleted, `seed ${seed}: deleted`).toBe(counts.deleted);
    ran.push(`${seed} (${ids.length} listed: ${counts.exact} exact, ${counts.coerced} coerced, ${counts.set_aside} set aside, ${counts.deleted} deleted${writerMemoryLimit ? `; writer cap ${writerMemoryLimit}` : ''})`);
  }, 300_000);
});
