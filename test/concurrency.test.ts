// One sync per database; readers (report, query, status) work while it runs.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('concurrency');

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  // Slow details keep the sync running for several seconds.
  sim = await startSimulator({ seed: 71, conversations: 500, rateLimit: 100_000, latency: { detailMs: 400 } });
  dir = fileDir();
});

afterAll(async () => {
  await sim.close();
});

describe('a sync and other commands on one database', () => {
  it('skips a second sync at once (exit 75), and lets report, query and status read in between batches', async () => {
    const dbPath = join(dir, 'shared.duckdb');
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const running = startCli(['sync'], env);
    const started = Date.now();
    while (sim.requestLog.filter((r) => r.kind === 'conversation_detail').length < 50 && Date.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 20));
    }

    const second = await runCli(['sync'], env);
    expect(second.code, second.stderr).toBe(75);
    expect(second.stderr.trim()).toMatch(/^convoduck: another convoduck sync \(pid \d+\) is already writing this database: this run is skipped/);

    const [report, query, status] = await Promise.all([
      runCli(['report', 'outcomes', 'coverage', '--out', join(dir, 'reports')], env),
      runCli(['query', '--format', 'json', 'SELECT count(*) AS n FROM conversations'], env),
      runCli(['status', '--json'], env),
    ]);
    expect(report.code, report.stderr).toBe(0);
    expect(readdirSync(join(dir, 'reports')).sort()).toEqual(['columns.md', 'coverage.csv', 'outcomes.csv']);
    expect(query.code, query.stderr).toBe(0);
    expect((JSON.parse(query.stdout) as { n: number }[])[0]!.n).toBe(500);
    expect(status.code, status.stderr).toBe(0);
    expect(running.child.exitCode, 'the sync should still be running while the readers ran').toBeNull();

    const done = await running.done;
    expect(done.code, done.stderr).toBe(0);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  }, 300_000);

  it('sync --wait: gives up after the bound (exit 75), or waits for the first sync to end and then syncs', async () => {
    const dbPath = join(dir, 'waited.duckdb');
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const running = startCli(['sync'], env);
    const deadline = Date.now() + 30_000;
    while (!existsSync(`${dbPath}.sync-lock`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));

    const [short, long] = await Promise.all([runCli(['sync', '--wait', '1s', '--json'], env), runCli(['sync', '--wait', '5m', '--json'], env)]);
    expect(short.code, short.stderr).toBe(75);
    expect(JSON.parse(short.stdout)).toMatchObject({ status: 'skipped', exitCode: 75 });
    expect(short.stderr.trim()).toMatch(/^convoduck: another convoduck sync \(pid \d+\) is already writing this database \(still after waiting 1s\): this run is skipped/);

    const first = await running.done;
    expect(first.code, first.stderr).toBe(0);
    expect(long.code, long.stderr).toBe(0);
    expect(JSON.parse(long.stdout)).toMatchObject({ status: 'ok', exitCode: 0 });
  }, 300_000);
});
