// Listing follows the server's timeline, not this machine's clock: `sync` (the built CLI, real
// HTTP) against servers whose clock runs behind or ahead, and ones that write their local time
// marked UTC. Conversations arriving between runs are all stored by the next run, every run says
// the skew, and no run that exits 0 holds less than the server does.
import { describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import type { SyncSummary } from '../src/crawler/sync.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('clock-skew', { rateLimit: 100_000 });

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

/** One `sync --json` run: its summary, and its stderr lines that are warnings about the clock. */
async function syncRun(sim: Simulator, dbPath: string) {
  const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
  const run = await runCli(['sync', '--json'], env);
  expect(run.code, run.stderr).toBe(0);
  const summary = JSON.parse(run.stdout) as SyncSummary;
  const clockLines = run.stderr.split('\n').filter((l) => /^convoduck: .*(clock|after the server's own now)/.test(l));
  return { summary, clockLines };
}

async function storedIds(dbPath: string): Promise<Set<string>> {
  return Database.with(dbPath, async (db) => new Set((await db.all<{ id: string }>(`SELECT id FROM conversations`)).map((r) => r.id)), { readOnly: true });
}

const HOUR = 3600;
/** newestAhead: bounds (seconds) of how far the newest conversation lies after the server's own now */
const SERVERS: { name: string; options: SimulatorOptions; skewSeconds: number; newestAhead: [number, number]; warns: RegExp | null }[] = [
  { name: 'a clock two hours behind', options: { clockSkewSeconds: -7200 }, skewSeconds: -7200, newestAhead: [-HOUR, 60], warns: /clock \(its Date header\) runs (2h00m|1h59m) behind this machine's/ },
  { name: 'a clock fifteen minutes ahead', options: { clockSkewSeconds: 900 }, skewSeconds: 900, newestAhead: [-HOUR, 60], warns: /clock \(its Date header\) runs (14m5[89]s|15m0[0-2]s) ahead of this machine's/ },
  { name: 'local time of UTC-5 written as +00:00', options: { localTimeAsUtcMinutes: -300 }, skewSeconds: 0, newestAhead: [-6 * HOUR, -4.5 * HOUR], warns: null },
  { name: 'local time of UTC+5 written as +00:00', options: { localTimeAsUtcMinutes: 300 }, skewSeconds: 0, newestAhead: [4.5 * HOUR, 5 * HOUR + 60], warns: /newest conversation \(\S+\) starts [45]h\d\dm after the server's own now/ },
];

describe('a server whose times are not this machine’s', () => {
  it.each(SERVERS)('$name: arrivals between runs are stored by the next run, and every run says the skew', async ({ options, skewSeconds, newestAhead, warns }) => {
    const sim = await simulator({ seed: 61, conversations: 150, ...options });
    const dbPath = tempDb();

    const first = await syncRun(sim, dbPath);
    const runs = [first];
    expect(first.summary.status).toBe('ok');
    expect(first.summary.conversationsListed).toBe(150);
    await expectStoreMatches(dbPath, everything(sim));

    for (let round = 0; round < 2; round++) {
      // Arrivals on the server's clock, finished, and the ones still open finish too.
      const arrived = sim.addConversations(25, { open: false }).map((c) => c.id);
      sim.finishOpenConversations();
      const next = await syncRun(sim, dbPath);
      runs.push(next);
      expect(next.summary.status).toBe('ok');
      const stored = await storedIds(dbPath);
      expect(arrived.filter((id) => !stored.has(id))).toEqual([]);
      // a run that exits 0 holds all the server holds
      await expectStoreMatches(dbPath, everything(sim));
      expect(next.summary.newestStartedAt).toBe(new Date(Math.max(...sim.dataset.conversations.map((c) => Date.parse(c.started_at)))).toISOString());
    }

    for (const run of runs) {
      // the Date header has whole seconds: the skew is known to a second and a little
      expect(Math.abs(run.summary.clockSkewSeconds! - skewSeconds)).toBeLessThanOrEqual(2);
      expect(run.summary.newestAheadSeconds).toBeGreaterThanOrEqual(newestAhead[0]);
      expect(run.summary.newestAheadSeconds).toBeLessThanOrEqual(newestAhead[1]);
      if (warns) {
        expect(run.clockLines).toHaveLength(1);
        expect(run.clockLines[0]).toMatch(warns);
        expect(run.clockLines[0]).toMatch(/^convoduck: space \S+: /);
      } else {
        expect(run.clockLines).toEqual([]);
      }
    }

    const rows = await Database.with(
      dbPath,
      (db) => db.all<{ clock_skew_seconds: number; newest_started_at: string }>(
        `SELECT clock_skew_seconds, strftime(newest_started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS newest_started_at FROM sync_runs ORDER BY run_id`,
      ),
      { readOnly: true },
    );
    expect(rows.map((r) => r.newest_started_at)).toEqual(runs.map((r) => r.summary.newestStartedAt));
    for (const r of rows) expect(Math.abs(r.clock_skew_seconds - skewSeconds)).toBeLessThanOrEqual(2);

    const status = await runCli(['status', '--db', dbPath]);
    expect(status.code).toBe(0);
    if (warns && skewSeconds !== 0) expect(status.stdout).toMatch(/^server clock: \S+ (behind|ahead of) this machine's \(run 3\)/m);
    else expect(status.stdout).not.toMatch(/^server clock:/m);
  });
});

describe('check against a server whose times are not this machine’s', () => {
  it.each([
    { options: { clockSkewSeconds: -7200 }, says: /the server's clock \(its Date header\) runs 2 h 00 min behind this machine's/, skew: -7200 },
    { options: { localTimeAsUtcMinutes: 300 }, says: /its newest conversation starts [45] h \d\d min after its own now/, skew: 0 },
  ])('warns in its timestamps finding, with the skew in --json, and a sync would still work', async ({ options, says, skew }) => {
    const sim = await simulator({ seed: 62, conversations: 60, ...options });
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey };
    const r = await runCli(['check', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    // each finding's measured values sit beside its status, name and message
    const report = JSON.parse(r.stdout) as { findings: { name: string; status: string; message: string; clockSkewSeconds: number }[] };
    const ts = report.findings.find((f) => f.name === 'timestamps')!;
    expect(ts.status).toBe('warn');
    expect(ts.message).toMatch(says);
    expect(Math.abs(ts.clockSkewSeconds - skew)).toBeLessThanOrEqual(2);

    const agreeing = await simulator({ seed: 62, conversations: 60 });
    const plain = await runCli(['check', '--json'], { CONVODUCK_BASE_URL: agreeing.baseUrl, CONVODUCK_API_KEY: agreeing.apiKey });
    const plainTs = (JSON.parse(plain.stdout) as typeof report).findings.find((f) => f.name === 'timestamps')!;
    expect(plainTs.status).toBe('ok');
    expect(Math.abs(plainTs.clockSkewSeconds)).toBeLessThanOrEqual(2);
  });
});

describe('a backfill on a server two hours behind', () => {
  it('lists exactly its --since (inclusive) .. --until (exclusive) window on the server’s times, moves no watermark, and a plain sync then stores the rest', async () => {
    const sim = await simulator({ seed: 63, conversations: 120, clockSkewSeconds: -7200 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const starts = sim.dataset.conversations.map((c) => Date.parse(c.started_at)).sort((a, b) => b - a);
    const since = new Date(starts[80]!).toISOString();
    const until = new Date(starts[20]!).toISOString();
    const backfill = await runCli(['sync', '--since', since, '--until', until, '--json'], env);
    expect(backfill.code, backfill.stderr).toBe(0);
    // --until is exclusive: the listing asks the API (whose `to` includes its end) up to the millisecond before
    expect((JSON.parse(backfill.stdout) as SyncSummary).windowTo).toBe(new Date(Date.parse(until) - 1).toISOString());
    const inWindow = sim.dataset.conversations.filter((c) => Date.parse(c.started_at) >= Date.parse(since) && Date.parse(c.started_at) < Date.parse(until));
    expect([...(await storedIds(dbPath))].sort()).toEqual(inWindow.map((c) => c.id).sort());
    expect(await Database.with(dbPath, (db) => db.all(`SELECT * FROM listing_watermarks`), { readOnly: true })).toEqual([]);

    const plain = await syncRun(sim, dbPath);
    expect(plain.summary.status).toBe('ok');
    await expectStoreMatches(dbPath, everything(sim));
  });
});
