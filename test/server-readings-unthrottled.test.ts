// `sync` over real HTTP against the simulator's readings of what the spec leaves open, with the
// rate limit out of the way: timestamps in every form, and a key revoked in the middle of a run.
// (The readings of the rate limit itself wait on real windows: server-readings.test.ts.)
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { scratch } from './support/scratch.js';
import { startCli } from './support/cli.js';

const { simulator, tempDb } = scratch('readings-unthrottled');

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

describe('sync on the server’s readings, the rate limit aside', () => {
  for (const timeFormat of ['z', 'offset', 'fraction-z', 'fraction-offset'] as const) {
    it(`timestamps served as ${timeFormat}: the same instants stored`, async () => {
      const sim = await simulator({ seed: 77, conversations: 80, rateLimit: 100_000, timeFormat });
      const dbPath = tempDb();
      const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
      expect(summary.status).toBe('ok');
      await expectStoreMatches(dbPath, everything(sim));
    });
  }

  it('a key revoked in the middle of a run: exit 3, what was fetched is kept, the next run with a working key ends exact', async () => {
    const sim = await simulator({ seed: 78, conversations: 300, rateLimit: 100_000, revokeKeyAfter: 120 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const revoked = await startCli(['sync'], env).done;
    expect(revoked.code, revoked.stderr).toBe(3);
    expect(revoked.stderr).toMatch(/401/);
    expect(revoked.stderr).not.toContain(sim.apiKey);
    const db = await Database.open(dbPath, { readOnly: true });
    const kept = Number((await db.all(`SELECT count(*)::INTEGER AS n FROM raw_conversations`))[0]!.n);
    db.close();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(300);
    sim.setOptions({ revokeKeyAfter: null });
    const healed = await startCli(['sync'], env).done;
    expect(healed.code, healed.stderr).toBe(0);
    await expectStoreMatches(dbPath, everything(sim));
  }, 300_000);
});
