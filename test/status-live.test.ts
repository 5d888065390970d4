// `convoduck status` while a sync runs: the running run's counts as the sync committed them (they
// only grow, and end equal to the run's summary), the run shown as `running (pid N)`; and details
// fetched just before a wait for the rate limit are committed within about 2 s, not after the wait.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../src/status/report.js';
import type { Simulator } from '../src/simulator/index.js';
import { runCli, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('status-live');

function env(sim: Simulator, dbPath: string, windowMs: number): NodeJS.ProcessEnv {
  return {
    CONVODUCK_BASE_URL: sim.baseUrl,
    CONVODUCK_API_KEY: sim.apiKey,
    CONVODUCK_DB: dbPath,
    CONVODUCK_RATE_WINDOW_MS: String(windowMs),
  };
}

async function statusJson(dbPath: string): Promise<StatusReport> {
  const r = await runCli(['status', '--json', '--db', dbPath]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as StatusReport;
}

const COUNTERS = ['conversationsListed', 'detailsFetched', 'requests', 'throttled', 'errors'] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('status during a sync', () => {
  it('shows the running run’s counts as committed: non-zero, only growing, and finally the run’s summary', async () => {
    const windowMs = 2_000;
    const sim = await simulator({ seed: 91, conversations: 240, rateLimit: 30, windowMs });
    const dbPath = tempDb();
    const run = startCli(['sync', '--json'], env(sim, dbPath, windowMs));
    let exited = false;
    void run.done.then(() => (exited = true));

    const seen: StatusReport['runs'][number][] = [];
    let text = '';
    while (!exited) {
      await sleep(300);
      if (!existsSync(dbPath) || exited) continue;
      const s = await statusJson(dbPath);
      const current = s.runs[0];
      if (!current || current.status !== 'running') continue;
      expect(s.syncRunning).toEqual({ pid: run.child.pid });
      expect(current.stale).toBe(false);
      seen.push(current);
      if (!text && current.detailsFetched > 0) text = (await runCli(['status', '--db', dbPath])).stdout;
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<(typeof COUNTERS)[number], number> & { runId: number };

    // polled mid-run, with counts the sync had committed so far
    expect(seen.length, 'status polls while the run was going').toBeGreaterThanOrEqual(3);
    const midway = seen.filter((r) => r.detailsFetched > 0 && r.detailsFetched < summary.detailsFetched);
    expect(midway.length, JSON.stringify(seen)).toBeGreaterThan(0);
    for (const r of midway) {
      expect(r.conversationsListed).toBeGreaterThan(0);
      expect(r.requests).toBeGreaterThan(0);
    }
    expect(text).toMatch(new RegExp(`running \\(pid ${run.child.pid}\\)`));

    const final = (await statusJson(dbPath)).runs[0]!;
    expect(final.runId).toBe(summary.runId);
    expect(final.status).toBe('ok');
    for (const key of COUNTERS) {
      const series = [...seen.map((r) => r[key]), final[key]];
      for (let i = 1; i < series.length; i++) expect(series[i]!, `${key}: ${series.join(', ')}`).toBeGreaterThanOrEqual(series[i - 1]!);
      expect(final[key], key).toBe(summary[key]);
    }
  }, 300_000);

  it('shows the listing’s counts while it lists, before any detail is fetched', async () => {
    const windowMs = 2_000;
    // 10 per page and 10 requests per 2 s: the listing takes a few windows
    const sim = await simulator({ seed: 93, conversations: 400, servedPerPage: 10, rateLimit: 10, windowMs });
    const dbPath = tempDb();
    const run = startCli(['sync', '--details', 'none', '--json'], env(sim, dbPath, windowMs));
    let exited = false;
    void run.done.then(() => (exited = true));
    const seen: StatusReport['runs'][number][] = [];
    while (!exited) {
      await sleep(300);
      if (!existsSync(dbPath) || exited) continue;
      const current = (await statusJson(dbPath)).runs[0];
      if (current?.status === 'running') seen.push(current);
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { conversationsListed: number; requests: number };
    const midway = seen.filter((r) => r.conversationsListed > 0 && r.conversationsListed < summary.conversationsListed);
    expect(midway.length, JSON.stringify(seen)).toBeGreaterThan(0);
    for (const r of midway) expect(r.requests).toBeGreaterThan(0);
    const listed = seen.map((r) => r.conversationsListed);
    for (let i = 1; i < listed.length; i++) expect(listed[i]!).toBeGreaterThanOrEqual(listed[i - 1]!);
  }, 300_000);

  it('commits details fetched before a wait for the rate limit within about 2 s, while the run waits', async () => {
    const windowMs = 15_000;
    const sim = await simulator({ seed: 92, conversations: 30, rateLimit: 10, windowMs });
    const dbPath = tempDb();
    const run = startCli(['sync'], env(sim, dbPath, windowMs));
    try {
      const details = () => sim.requestLog.filter((r) => r.client === 'key' && r.kind === 'conversation_detail' && r.status === 200);
      // the first window's budget is spent on a few details; then the run waits most of a window
      // however long a loaded machine takes to start the run
      const deadline = Date.now() + 120_000;
      while (details().length === 0 && Date.now() < deadline) await sleep(50);
      expect(details().length).toBeGreaterThan(0);
      const lastRequestAt = () => sim.requestLog.filter((r) => r.client === 'key').at(-1)!.t;
      // 6 s of quiet: well past the commit's 2 s on a loaded machine, well short of the 15 s wait
      while (Date.now() - lastRequestAt() < 6_000) await sleep(50);
      const fetched = details().length;
      const logged = sim.requestLog.length;

      const s = await statusJson(dbPath);
      // nothing was sent meanwhile: the run is still waiting for its next slot
      expect(sim.requestLog.length).toBe(logged);
      expect(s.runs[0]!.status).toBe('running');
      expect(s.runs[0]!.detailsFetched).toBe(fetched);
      expect(s.details.stored).toBe(fetched);
    } finally {
      run.child.kill('SIGKILL');
      await run.done;
    }
  }, 300_000);
});
