// A sync killed with SIGKILL at any point, then started again, ends with exactly the
// simulator's data and no duplicate key.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('crash');

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 31, conversations: 1500, rateLimit: 100_000, latency: { detailMs: 5, listMs: 30 } });
  dir = fileDir();
});

afterAll(async () => {
  await sim.close();
});

describe('sync killed with SIGKILL', () => {
  it('resumes to exact data after kills at several points of a run', async () => {
    const dbPath = join(dir, 'crash.duckdb');
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    // Early (dimensions/listing), mid-details, late details: each kill lands in a different phase.
    const killAfterMs = [150, 700, 1300, 1900, 2600];
    let killed = 0;
    for (const delay of killAfterMs) {
      const { child, done } = startCli(['sync'], env);
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const result = await done;
      clearTimeout(timer);
      if (result.signal === 'SIGKILL') killed++;
      else expect(result.code, result.stderr).toBe(0);
    }
    expect(killed).toBeGreaterThanOrEqual(3);
    const final = await runCli(['sync', '--json'], env);
    expect(final.code, final.stderr).toBe(0);
    const summary = JSON.parse(final.stdout) as { detailsPending: number; status: string };
    expect(summary.status).toBe('ok');
    expect(summary.detailsPending).toBe(0);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  }, 300_000);

  it('on SIGINT commits what it fetched, records the run as interrupted and exits 130', async () => {
    const slow = await startSimulator({ seed: 32, conversations: 600, rateLimit: 100_000, latency: { detailMs: 40 } });
    try {
      const dbPath = join(dir, 'interrupt.duckdb');
      const env = { CONVODUCK_BASE_URL: slow.baseUrl, CONVODUCK_API_KEY: slow.apiKey, CONVODUCK_DB: dbPath };
      const { child, done } = startCli(['sync'], env);
      // Interrupt once details are flowing.
      const started = Date.now();
      while (slow.requestLog.filter((r) => r.kind === 'conversation_detail').length < 100 && Date.now() - started < 30_000) {
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill('SIGINT');
      const result = await done;
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toMatch(/SIGINT: committing what was fetched/);
      const db = await Database.open(dbPath, { readOnly: true });
      const run = await db.one<{ status: string; details_fetched: number }>(
        `SELECT status, details_fetched FROM sync_runs ORDER BY run_id DESC LIMIT 1`,
      );
      const stored = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM raw_conversations`);
      db.close();
      expect(run?.status).toBe('interrupted');
      expect(stored!.n).toBeGreaterThanOrEqual(100 - 40); // all but what was in flight
      expect(stored!.n).toBeLessThan(600);
      const again = await runCli(['sync'], env);
      expect(again.code, again.stderr).toBe(0);
      await expectStoreMatches(dbPath, { conversations: slow.dataset.conversations, detail: (id) => slow.dataset.detail(id) });
    } finally {
      await slow.close();
    }
  }, 300_000);
});
