// The listing is verified, never assumed: `sync` against servers that page differently than
// asked, announce pages past the end, count conversations they never list, or receive
// conversations inside windows already listed. Real HTTP to the simulator, real DuckDB files.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { sync, type SyncOptions, type SyncProgress } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { getWatermark } from '../src/store/watermark.js';
import type { StatusReport } from '../src/status/report.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli } from './support/cli.js';

const { simulator, tempDb } = scratch('listing', { rateLimit: 100_000 });

function syncWith(sim: Simulator, dbPath: string, extra: Partial<SyncOptions> = {}) {
  return sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, ...extra });
}

const listRequests = (sim: Simulator, since = 0) =>
  sim.requestLog.slice(since).filter((r) => r.client === 'key' && r.kind === 'conversation_list').length;

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

async function readWatermark(dbPath: string): Promise<string | null> {
  const db = await Database.open(dbPath, { readOnly: true });
  try {
    return (await getWatermark(db))?.toISOString() ?? null;
  } finally {
    db.close();
  }
}

describe('a server that serves fewer conversations per page than asked', () => {
  it.each([
    { served: 50, conversations: 450, seed: 31 },
    { served: 37, conversations: 750, seed: 32 },
  ])('stores every conversation at $served per page, in at most twice the pages needed', async ({ served, conversations, seed }) => {
    const sim = await simulator({ seed, conversations, servedPerPage: served });
    const dbPath = tempDb();
    const summary = await syncWith(sim, dbPath);
    expect(summary.status).toBe('ok');
    expect(summary.listingShortfall).toBe(0);
    expect(summary.conversationsListed).toBe(conversations);
    await expectStoreMatches(dbPath, everything(sim));
    expect(listRequests(sim)).toBeLessThanOrEqual(2 * Math.ceil(conversations / served));
    expect(await readWatermark(dbPath)).toBe(summary.windowTo);
  });
});

describe('a server that announces a page after every full page', () => {
  it('follows next_page to the empty page and stores exactly the data', async () => {
    const sim = await simulator({ seed: 33, conversations: 600, nextPageOnFullPage: true });
    const dbPath = tempDb();
    const summary = await syncWith(sim, dbPath);
    expect(summary.status).toBe('ok');
    await expectStoreMatches(dbPath, everything(sim));
    // 600 at 200 a page: three full pages and at most the one empty page they announce
    expect(listRequests(sim)).toBeLessThanOrEqual(4);
  });
});

describe('conversations that arrive inside windows already listed', () => {
  it('re-lists until the window adds up, and the next run catches up on later arrivals', async () => {
    const lagMs = 3 * 60_000;
    // (stable ties: arrivals in one second outnumber a page, and this test is about the arrivals)
    const sim = await simulator({
      seed: 34,
      conversations: 500,
      servedPerPage: 50,
      unstableTies: false,
      arrivalsPerMinute: 3_000,
      arrivalLagMs: lagMs,
    });
    const dbPath = tempDb();
    // Once the first page is stored, more than a page's worth arrive behind it (pushing the oldest
    // past the last page counted at first) and the background arrivals stop, so the run's window
    // has a definite content to add up to.
    let injected = 0;
    const onProgress = (p: SyncProgress) => {
      if (p.phase !== 'listing' || p.listed === 0 || injected > 0) return;
      injected = sim.addConversations(60).length;
      sim.setOptions({ arrivalsPerMinute: 0 });
    };
    const first = await syncWith(sim, dbPath, { onProgress });
    expect(injected).toBe(60);
    expect(first.status).toBe('ok');
    expect(sim.dataset.conversations.length).toBeGreaterThan(560);
    expect(sim.dataset.conversations.every((c) => Date.parse(c.started_at) <= Date.parse(first.windowTo))).toBe(true);
    expect(first.conversationsListed).toBe(sim.dataset.conversations.length);
    await expectStoreMatches(dbPath, everything(sim));

    // Later arrivals start before the watermark the first run set: the next run's overlap lists them.
    sim.setOptions({ arrivalsPerMinute: 3_000 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    sim.setOptions({ arrivalsPerMinute: 0 });
    const late = sim.addConversations(20);
    const watermark = Date.parse((await readWatermark(dbPath))!);
    expect(late.every((c) => Date.parse(c.started_at) < watermark)).toBe(true);
    const second = await syncWith(sim, dbPath);
    expect(second.status).toBe('ok');
    await expectStoreMatches(dbPath, everything(sim));
  });
});

describe('a listing that cannot add up', () => {
  it('from the beginning of history: stores what was served, keeps no watermark, says by how many', async () => {
    const sim = await simulator({ seed: 35, conversations: 500, hiddenFromLists: 3 });
    const hidden = new Set(sim.hiddenConversationIds());
    expect(hidden.size).toBe(3);
    const dbPath = tempDb();
    const before = sim.requestLog.length;
    const summary = await syncWith(sim, dbPath);
    expect(summary.status).toBe('errors');
    expect(summary.listingShortfall).toBe(3);
    expect(summary.listingGap).toMatchObject({ counted: expect.any(Number), nextRunRelists: true });
    expect(summary.listingGap!.counted - summary.listingGap!.served).toBe(3);
    expect(summary.conversationsListed).toBe(497);
    // narrowing down three holes costs a bounded number of pages
    expect(listRequests(sim, before)).toBeLessThan(300);
    await expectStoreMatches(dbPath, {
      conversations: sim.dataset.conversations.filter((c) => !hidden.has(c.id)),
      detail: (id) => sim.dataset.detail(id),
    });
    expect(await readWatermark(dbPath)).toBeNull();
    const db = await Database.open(dbPath, { readOnly: true });
    const rows = await db.all(`SELECT message FROM sync_errors WHERE stage = 'listing' AND run_id = ?`, [summary.runId]);
    const run = await db.one(`SELECT status, message FROM sync_runs WHERE run_id = ?`, [summary.runId]);
    db.close();
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(run).toEqual({ status: 'errors', message: summary.listingGap!.message });

    sim.setOptions({ hiddenFromLists: 0 });
    const healed = await syncWith(sim, dbPath);
    expect(healed.status).toBe('ok');
    expect(healed.listingShortfall).toBe(0);
    await expectStoreMatches(dbPath, everything(sim));
    expect(await readWatermark(dbPath)).toBe(healed.windowTo);
  });

  it('CLI: exits 1 with one line naming the shortfall, keeps the watermark, status shows the gap until a run lists it', async () => {
    const sim = await simulator({ seed: 36, conversations: 500 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const healthy = await runCli(['sync'], env);
    expect(healthy.code, healthy.stderr).toBe(0);
    const watermark = await readWatermark(dbPath);
    expect(watermark).not.toBeNull();

    // New conversations after the watermark, some of which the server counts but never lists.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const fresh = new Set(sim.addConversations(30, { open: false }).map((c) => c.id));
    sim.setOptions({ hiddenFromLists: 40 });
    const hiddenFresh = sim.hiddenConversationIds().filter((id) => fresh.has(id));
    expect(hiddenFresh.length).toBeGreaterThan(0);

    const short = await runCli(['sync', '--json'], env);
    expect(short.code, short.stderr).toBe(1);
    const summary = JSON.parse(short.stdout) as { status: string; windowFrom: string; windowTo: string; listingShortfall: number };
    const inWindow = sim
      .hiddenConversationIds()
      .map((id) => Date.parse(sim.dataset.detail(id)!.started_at))
      .filter((t) => t >= Date.parse(summary.windowFrom) && t <= Date.parse(summary.windowTo));
    expect(summary.status).toBe('errors');
    expect(summary.listingShortfall).toBe(inWindow.length);
    const lines = short.stderr.split('\n').filter((l) => l.includes('is short'));
    expect(lines).toHaveLength(1);
    const m = /^convoduck: listing (\S+)\.\.(\S+) is short: the server counts (\d+) conversations?, (\d+) (?:was|were) served( \(over \d+ short windows in that span\))? — the watermark stays; the next run lists this window again$/.exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(Number(m![3]) - Number(m![4])).toBe(inWindow.length);
    expect(await readWatermark(dbPath)).toBe(watermark);

    const status = await runCli(['status', '--db', dbPath]);
    expect(status.code).toBe(0);
    const missing = inWindow.length;
    expect(status.stdout).toMatch(
      new RegExp(`^listing gap: ${missing} conversations? missing in \\S+ … \\S+ \\(run 2(, \\d+ windows)?\\); the next sync lists it again$`, 'm'),
    );
    const statusJson = JSON.parse((await runCli(['status', '--db', dbPath, '--json'])).stdout) as StatusReport;
    expect(statusJson.listingGaps).toHaveLength(1);
    expect(statusJson.listingGaps[0]).toMatchObject({ runId: 2, missing });

    sim.setOptions({ hiddenFromLists: 0 });
    const healed = await runCli(['sync'], env);
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.stderr).not.toMatch(/is short/);
    await expectStoreMatches(dbPath, everything(sim));
    expect(Date.parse((await readWatermark(dbPath))!)).toBeGreaterThan(Date.parse(watermark!));
    const after = await runCli(['status', '--db', dbPath]);
    expect(after.stdout).not.toMatch(/listing gap/);
    expect((JSON.parse((await runCli(['status', '--db', dbPath, '--json'])).stdout) as StatusReport).listingGaps).toEqual([]);
  });
});
