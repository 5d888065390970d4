// `convoduck sync` as a scheduler runs it: --json prints one JSON object on stdout whatever the
// outcome, and SIGTERM stops the run at once, with nothing sent after it and everything
// served before it stored.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RequestLogEntry, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { startCli, runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('sync-cli');

let sim: Simulator;
let dir: string;
let dbCount = 0;

beforeAll(async () => {
  sim = await startSimulator({ seed: 81, conversations: 120, rateLimit: 100_000, latency: { detailMs: 20 } });
  dir = fileDir();
});

afterAll(async () => {
  await sim.close();
});

const tempDb = () => join(dir, `run-${++dbCount}.duckdb`);
const envFor = (s: Simulator, dbPath: string) => ({ CONVODUCK_BASE_URL: s.baseUrl, CONVODUCK_API_KEY: s.apiKey, CONVODUCK_DB: dbPath });

interface Outcome {
  status: string;
  exitCode: number;
  error: string | null;
  detailsFetched?: number;
  detailsPending?: number;
  runId?: number;
  requests?: number;
}

/** stdout must be exactly one JSON object on one line. */
function parseOutcome(stdout: string): Outcome {
  const lines = stdout.trimEnd().split('\n');
  expect(lines, stdout).toHaveLength(1);
  return JSON.parse(lines[0]!) as Outcome;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(10);
  }
}

describe('sync --json', () => {
  it('a finished run: exit 0 and the summary with status ok', async () => {
    const result = await runCli(['sync', '--json'], envFor(sim, tempDb()));
    expect(result.code, result.stderr).toBe(0);
    const outcome = parseOutcome(result.stdout);
    expect(outcome).toMatchObject({ status: 'ok', exitCode: 0, error: null, detailsFetched: 120, detailsPending: 0 });
    expect(outcome.runId).toBeGreaterThan(0);
  }, 300_000);

  it('a refused key: exit 3, status refused, and the key nowhere in the output', async () => {
    const wrongKey = 'np_wrong_key_0123456789abcdef';
    const result = await runCli(['sync', '--json'], { ...envFor(sim, tempDb()), CONVODUCK_API_KEY: wrongKey });
    expect(result.code, result.stderr).toBe(3);
    const outcome = parseOutcome(result.stdout);
    expect(outcome).toMatchObject({ status: 'refused', exitCode: 3 });
    expect(outcome.error).toMatch(/\S/);
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
    expect(result.stdout + result.stderr).not.toContain(wrongKey.slice(3));
  }, 300_000);

  it('bad settings: exit 2, status usage, the same line as on stderr', async () => {
    const result = await runCli(['sync', '--json', '--since', 'someday'], envFor(sim, tempDb()));
    expect(result.code, result.stderr).toBe(2);
    const outcome = parseOutcome(result.stdout);
    expect(outcome).toMatchObject({ status: 'usage', exitCode: 2 });
    expect(result.stderr.trimEnd()).toBe(`convoduck: ${outcome.error}`);
  }, 300_000);
});

describe('SIGTERM at the API’s own 60 requests per minute', () => {
  // The client spends the key's 60 at once (a rolling window allows it), then waits most of a minute.
  it.each(['requests in flight', 'waiting for budget'] as const)('%s: exits 130 well before the window ends, with JSON, sends nothing after the signal, keeps every detail served before it', async (moment) => {
    const served: { id: string; at: number }[] = [];
    const slow = await startSimulator({
      seed: 82,
      conversations: 60,
      latency: { detailMs: 300 },
      onRequest: (entry: RequestLogEntry) => {
        if (entry.client === 'key' && entry.kind === 'conversation_detail' && entry.status === 200) {
          served.push({ id: entry.path.split('/').pop()!, at: Date.now() });
        }
      },
    });
    expect(slow.options.windowMs).toBe(60_000);
    expect(slow.options.rateLimit).toBe(60);
    try {
      const dbPath = tempDb();
      const run = startCli(['sync', '--json'], envFor(slow, dbPath));
      const ownDetails = () => slow.requestLog.filter((r) => r.client === 'key' && r.kind === 'conversation_detail');
      const settled = () => served.filter((s) => s.at < Date.now() - 25).length;
      const lastSent = () => slow.requestLog.filter((r) => r.client === 'key').at(-1)?.t ?? Date.now();
      if (moment === 'requests in flight') {
        // some details stored, and more asked for than answered
        await until(() => settled() >= 3 && ownDetails().length > served.length, 45_000);
      } else {
        // the budget spent: every request answered and none sent for a while, with details still to fetch
        await until(() => settled() >= 40 && ownDetails().length === served.length && Date.now() - lastSent() > 800, 45_000);
        expect(served.length).toBeLessThan(60);
      }
      const signalledAt = Date.now();
      run.child.kill('SIGTERM');
      const result = await run.done;
      const stoppedAfter = Date.now() - signalledAt;

      expect(result.code, result.stderr).toBe(130);
      // a run that sat out the rest of the minute would take tens of seconds; a loaded machine takes a few
      expect(stoppedAfter).toBeLessThan(15_000);
      const outcome = parseOutcome(result.stdout);
      expect(outcome).toMatchObject({ status: 'interrupted', exitCode: 130 });
      expect(outcome.error).toMatch(/interrupted/);

      // 2 s for requests already on the wire when the signal was sent, which a loaded machine's
      // server (in this process) may take that long to log
      const late = slow.requestLog.filter((r) => r.client === 'key' && r.t > signalledAt + 2_000);
      expect(late).toEqual([]);

      const db = await Database.open(dbPath, { readOnly: true });
      const rows = await db.all<{ id: string }>(`SELECT id FROM raw_conversations`);
      db.close();
      const stored = new Set(rows.map((r) => r.id));
      // a body sent in the last few ms before the signal may still be on its way when the run stops
      const servedBefore = served.filter((s) => s.at < signalledAt - 25).map((s) => s.id);
      expect(servedBefore.length).toBeGreaterThanOrEqual(3);
      for (const id of servedBefore) expect(stored.has(id), `detail ${id} was served but not stored`).toBe(true);
      const everServed = new Set(served.map((s) => s.id));
      for (const id of stored) expect(everServed.has(id), `detail ${id} stored but never served`).toBe(true);
      expect(outcome.detailsFetched).toBe(stored.size);
    } finally {
      await slow.close();
    }
  }, 300_000);
});
