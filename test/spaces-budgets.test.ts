// `sync --config` with three spaces at a small limit each, crawled in the same run: each key has a
// budget of its own, never one shared by the keys. Real HTTP, windows shrunk to 2 s, so this file
// waits on real windows (the timing project runs it alone).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestLogEntry, Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb, tempDir } = scratch('spaces-budgets');
/** Seeds whose spaces have three different slugs. */
const SEEDS = [141, 142, 143] as const;

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });
const own = (sim: Simulator): RequestLogEntry[] => sim.requestLog.filter((r) => r.client === 'key');

/** A config file for `sims` (one [[space]] each, keys in variables) and a database for it. */
function job(sims: Simulator[]): { env: NodeJS.ProcessEnv; dbPath: string } {
  const config = join(tempDir(), 'spaces.toml');
  writeFileSync(config, sims.map((sim, i) => `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "SPACE_${i}_KEY"\n`).join('\n'));
  const dbPath = tempDb();
  const env: NodeJS.ProcessEnv = { CONVODUCK_CONFIG: config, CONVODUCK_DB: dbPath };
  sims.forEach((sim, i) => (env[`SPACE_${i}_KEY`] = sim.apiKey));
  return { env, dbPath };
}

describe('each key at its own limit', () => {
  const W = 2_000;
  const LIMIT = 60;

  /** Accepted requests per window over the whole windows inside [from, to). */
  function perWindow(entries: RequestLogEntry[], from: number, to: number): number[] {
    const accepted = entries.filter((r) => r.status === 200).map((r) => r.t);
    const counts: number[] = [];
    for (let start = from; start + W <= to; start += W) counts.push(accepted.filter((t) => t >= start && t < start + W).length);
    return counts;
  }

  // How much of its own limit each key holds while the others run is measured by `npm run bench`
  // (the many-spaces case). Here only what a budget shared by the keys could never do is asked for:
  // the three keys together have more accepted requests in one window than one key's limit.
  it('three spaces at 60 per window each, in the same run: each key has a budget of its own', async () => {
    const sims = await Promise.all(SEEDS.map((seed) => simulator({ seed, conversations: 300, rateLimit: LIMIT, windowMs: W })));
    const { env, dbPath } = job(sims);
    const run = await runCli(['sync'], { ...env, CONVODUCK_RATE_WINDOW_MS: String(W) });
    expect(run.code, run.stderr).toBe(0);
    for (const sim of sims) await expectStoreMatches(dbPath, everything(sim), { space: sim.space });

    // the span in which all three fetched details at once: from the latest first detail to the earliest last one
    const spans = sims.map((sim) => {
      const details = own(sim).filter((r) => r.status === 200 && r.kind === 'conversation_detail');
      return { first: details[0]!.t, last: details.at(-1)!.t };
    });
    const from = Math.max(...spans.map((s) => s.first));
    const to = Math.min(...spans.map((s) => s.last));
    expect(to - from, 'the three crawls overlap by several windows').toBeGreaterThanOrEqual(3 * W);
    const windows = sims.map((sim) => perWindow(own(sim), from, to));
    const together = windows[0]!.map((_, k) => windows.reduce((sum, w) => sum + w[k]!, 0));
    expect(Math.max(...together), `per window: ${windows.map((w) => w.join(',')).join(' | ')}`).toBeGreaterThan(LIMIT);
    for (const sim of sims) expect(own(sim).filter((r) => r.status === 429).length, sim.space).toBeLessThanOrEqual(1);
  }, 300_000);
});
