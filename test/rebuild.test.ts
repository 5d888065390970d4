// `convoduck rebuild` re-derives every table from the raw responses without a single request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'convoduck-rebuild-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rebuild', () => {
  it('restores damaged derived tables from the raw responses with the API gone', async () => {
    const sim = await startSimulator({ seed: 81, conversations: 600, rateLimit: 100_000 });
    const data = { conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) };
    const dbPath = join(dir, 'rebuild.duckdb');
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    await sim.close(); // nothing to ask from here on

    await Database.with(dbPath, async (db) => {
      await db.run(`DELETE FROM transcript_turns WHERE seq % 2 = 0`);
      await db.run(`DELETE FROM node_visits`);
      await db.run(`UPDATE conversations SET outcome = 'tampered'`);
      await db.run(`INSERT INTO tool_calls SELECT * FROM tool_calls LIMIT 5`);
    });
    const result = await runCli(['rebuild', '--db', dbPath]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/rebuilt .* 600 conversations/);
    await expectStoreMatches(dbPath, data);
  });
});
