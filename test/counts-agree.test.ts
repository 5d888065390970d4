// One number per idea: what `sync --json` says of a run, what `status --json` and the status
// table say of it and of the database, for the same database, a run killed mid-details included.
import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('counts-agree');

let sim: Simulator;

beforeAll(async () => {
  // details served faster than they are written: the writer's queue holds fetched details at the kill
  sim = await startSimulator({ seed: 34, conversations: 3000, rateLimit: 100_000, latency: { detailMs: 2 } });
});

afterAll(async () => {
  await sim?.close();
});

interface RunJson {
  runId: number;
  status: string;
  stale: boolean;
  conversationsListed: number;
  detailsFetched: number;
  errors: number;
}
interface StatusJson {
  runs: RunJson[];
  details: { listed: number; stored: number; pending: number; failing: number };
  openConversations: { count: number };
}

/** The status table's row of run `id`: its listed, stored and errors columns. */
function tableRow(text: string, id: number): { listed: number; stored: number; errors: number } {
  const lines = text.split('\n');
  const header = lines.find((l) => /^\s+run\s+started/.test(l))!;
  const row = lines.find((l) => new RegExp(`^\\s+${id}\\s`).test(l))!;
  expect(row, `run ${id} in\n${text}`).toBeDefined();
  const cells = row.trim().split(/\s{2,}/);
  const names = header.trim().split(/\s{2,}/);
  const n = (name: string) => Number(cells[names.indexOf(name)]!.replace(/,/g, ''));
  return { listed: n('listed'), stored: n('stored'), errors: n('errors') };
}

async function usableStored(dbPath: string): Promise<number> {
  return Database.with(dbPath, async (db) => Number((await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM raw_conversations WHERE invalid_reason IS NULL`))!.n), {
    readOnly: true,
  });
}

describe('counts that agree', () => {
  it('sync --json, status --json and the status table give one pending, stored and errors; a killed run shows what it committed', async () => {
    // a run killed outright once it has committed details and goes on fetching more; on a busy
    // machine the status reads between can let a run finish first: then again, into a new file
    let dbPath = '';
    let env: NodeJS.ProcessEnv = {};
    for (let attempt = 1; ; attempt++) {
      dbPath = join(fileDir(), `agree-${attempt}.duckdb`);
      env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
      const { child, done } = startCli(['sync'], env);
      const detailsBefore = sim.requestLog.filter((r) => r.kind === 'conversation_detail').length;
      const started = Date.now();
      const committed = async () => (JSON.parse((await runCli(['status', '--json'], env)).stdout || '{"runs":[]}') as StatusJson).runs[0]?.detailsFetched ?? 0;
      while (child.exitCode === null && (sim.requestLog.filter((r) => r.kind === 'conversation_detail').length === detailsBefore || ((await committed()) === 0 && Date.now() - started < 60_000))) {
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill('SIGKILL');
      const ended = await done;
      if (ended.signal === 'SIGKILL') break;
      expect(attempt, `the sync ended before the kill ${attempt} times (exit ${ended.code})`).toBeLessThan(4);
    }

    const afterKill = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusJson;
    const killed = afterKill.runs[0]!;
    expect(killed.stale).toBe(true);
    const storedByKilled = await usableStored(dbPath);
    expect(storedByKilled).toBeGreaterThan(0);
    expect(storedByKilled).toBeLessThan(3000);
    // the killed run's figures are what it committed: every stored detail is its
    expect(killed.detailsFetched).toBe(storedByKilled);
    expect(afterKill.details.stored).toBe(storedByKilled);
    const killedText = (await runCli(['status'], env)).stdout;
    expect(tableRow(killedText, killed.runId)).toEqual({ listed: killed.conversationsListed, stored: storedByKilled, errors: killed.errors });
    expect(killedText).toMatch(new RegExp(`pending ${afterKill.details.pending.toLocaleString('en-US')} \\(`));

    // the next run finishes it: its summary and status say the same numbers; a heartbeat file a
    // killed holder left between its write and its rename is gone after it
    const strayBeat = `${dbPath}.sync-lock.pod-0.4711.0123456789abcdef.beat`;
    writeFileSync(strayBeat, '');
    const synced = await runCli(['sync', '--json'], env);
    expect(synced.code, synced.stderr).toBe(0);
    expect(readdirSync(dirname(dbPath)).filter((f) => f.endsWith('.beat'))).toEqual([]);
    const summary = JSON.parse(synced.stdout) as { runId: number; detailsFetched: number; detailsPending: number; errors: number; conversationsListed: number };
    const status = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusJson;
    const run = status.runs.find((r) => r.runId === summary.runId)!;
    expect({ stored: run.detailsFetched, errors: run.errors, listed: run.conversationsListed }).toEqual({
      stored: summary.detailsFetched,
      errors: summary.errors,
      listed: summary.conversationsListed,
    });
    expect(status.details.pending).toBe(summary.detailsPending);
    expect(status.details.stored).toBe(await usableStored(dbPath));
    // open conversations are counted apart, not as pending
    expect(status.openConversations.count).toBeGreaterThan(0);
    expect(summary.detailsPending).toBe(0);
    const text = (await runCli(['status'], env)).stdout;
    expect(tableRow(text, summary.runId)).toEqual({ listed: summary.conversationsListed, stored: summary.detailsFetched, errors: summary.errors });
    expect(text).toContain(`pending ${summary.detailsPending} (`);
    expect(synced.stderr).toContain(`${summary.detailsFetched} details stored, ${summary.detailsPending} pending`);
  }, 300_000);
});
