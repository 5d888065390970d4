// Many keys flushing at once: two dozen simulated spaces crawled flat out in one run, so the one
// writer stores many spaces' details in the same transactions. Every space must come out exact.
import { afterEach, describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import { generateDataset, startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys, expectStoreMatches } from './support/store-vs-simulator.js';

const { tempDb } = scratch('spaces-many');
const SPACES = 24;
const running: Simulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

describe('sync of many spaces at once', () => {
  it('twenty-four spaces flat out in one run: every space exact, every run ok', async () => {
    const now = new Date();
    const sims = await Promise.all(
      Array.from({ length: SPACES }, (_, i) =>
        startSimulator({
          rateLimit: 1_000_000,
          dataset: generateDataset({ seed: 900 + i, conversations: 60, now, spaceSlug: `many-${String(i + 1).padStart(2, '0')}` }),
        }),
      ),
    );
    running.push(...sims);
    const dbPath = tempDb();
    const summary = await syncSpaces({
      dbPath,
      spaces: sims.map((sim, i) => ({ label: `space ${i}`, baseUrl: sim.baseUrl, apiKey: sim.apiKey })),
    });
    expect(
      summary.spaces.filter((s) => s.status !== 'ok').map((s) => `${s.space}: ${s.error instanceof Error ? s.error.message : String(s.error)}`),
      'spaces that did not end ok',
    ).toEqual([]);
    for (const sim of sims) {
      await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) }, { space: sim.space });
    }
    await Database.with(dbPath, (db) => expectNoDuplicateKeys(db), { readOnly: true });
  }, 300_000);
});
