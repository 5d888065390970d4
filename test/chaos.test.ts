// Chaos: ten rounds of sync against a simulator that fails in every way it can, each round
// killed with SIGKILL at a random point and restarted until it finishes. After every round the
// database holds exactly the simulator's data, with no duplicate key.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng, startSimulator, type Simulator } from '../src/simulator/index.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('chaos');

const ROUNDS = 10;
const WINDOW_MS = 2_000;

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 61,
    conversations: 500,
    // 150 requests per 2 s, half of it spent by a second client at times: 429 storms.
    rateLimit: 150,
    windowMs: WINDOW_MS,
    latency: { listMs: 30, detailMs: 15, otherMs: 5 },
    faults: { error5xx: 0.04, drop: 0.01, truncate: 0.01 },
  });
  dir = fileDir();
});

afterAll(async () => {
  await sim.close();
});

describe('chaos', () => {
  it(`survives ${ROUNDS} rounds of faults, throttling storms and SIGKILL`, async () => {
    const rng = new Rng(20261121);
    const dbPath = join(dir, 'chaos.duckdb');
    const env = {
      CONVODUCK_BASE_URL: sim.baseUrl,
      CONVODUCK_API_KEY: sim.apiKey,
      CONVODUCK_DB: dbPath,
      CONVODUCK_RATE_WINDOW_MS: String(WINDOW_MS),
    };
    let kills = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Every round brings new conversations, finishes the open ones, and flips the storm.
      sim.addConversations(rng.int(20, 80));
      sim.finishOpenConversations();
      sim.setOptions({ otherClientRpm: rng.chance(0.5) ? 2_400 : 0 });

      const first = startCli(['sync'], env);
      const timer = setTimeout(() => first.child.kill('SIGKILL'), rng.int(50, 1_200));
      const killed = await first.done;
      clearTimeout(timer);
      if (killed.signal === 'SIGKILL') kills++;

      let code = killed.signal === 'SIGKILL' ? null : killed.code;
      for (let attempt = 0; code !== 0 && attempt < 6; attempt++) {
        const result = await startCli(['sync'], env).done;
        expect([0, 1], result.stderr).toContain(result.code);
        code = result.code;
      }
      expect(code, `round ${round} did not finish cleanly`).toBe(0);
      await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
    }
    expect(kills).toBeGreaterThanOrEqual(ROUNDS / 2);
  }, 300_000);
});
