// The writer checkpoints under a tighter memory cap than its writes. Should DuckDB fail such a
// checkpoint (it then gives up the instance, the commits left in the WAL), the writer checkpoints
// again from a fresh opening: nothing is lost, and the file is whole without its WAL.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys, expectStoreMatches } from './support/store-vs-simulator.js';
import { Database } from '../src/store/database.js';

const { simulator, tempDb } = scratch('checkpoint-fallback');

describe('checkpoints that fail under the cap', () => {
  it('lose nothing, and leave no WAL behind', async () => {
    const sim = await simulator({ seed: 61, conversations: 300, rateLimit: 100_000 });
    const dbPath = tempDb();

    // 1 MB is too little for any checkpoint with rows to write: every capped one fails
    const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, checkpointMemoryLimit: '1MB' });

    expect(summary.status).toBe('ok');
    expect(summary.detailsFetched).toBe(300);
    expect(existsSync(`${dbPath}.wal`)).toBe(false);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
    await Database.with(dbPath, (db) => expectNoDuplicateKeys(db));

    // a second run: the 20 new conversations and those the first run found still open
    const open = sim.dataset.conversations.filter((c) => c.outcome === null).length;
    sim.addConversations(20);
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, checkpointMemoryLimit: '1MB' });
    expect(second.detailsFetched).toBe(20 + open);
    expect(existsSync(`${dbPath}.wal`)).toBe(false);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  });
});
