// A sync killed with SIGKILL at any point, then started again, ends with exactly the
// simulator's data and no duplicate key.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli, startCli } from './support/cli.js';

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 31, conversations: 1500, rateLimit: 100_000, latency: { detailMs: 5, listMs: 30 } });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-crash-'));
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
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
  }, 90_000);
});
