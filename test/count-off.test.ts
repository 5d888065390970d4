// A server whose `meta.total` is off for good (a cached count, soft-deleted rows counted): the
// first run reports the window short, the next one that finds the same shortfall trusts what is
// served (exit 0, one warning line, sync_runs.server_count_excess, status), later runs list only
// what is new, and a listing that then really falls short is still caught. Real HTTP to the
// simulator, the built CLI, real DuckDB files.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { sync, type SyncOptions } from '../src/crawler/sync.js';
import { getStatus } from '../src/status/read-status.js';
import { Database } from '../src/store/database.js';
import type { StatusReport } from '../src/status/report.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('count-off', { rateLimit: 100_000 });

const listRequests = (sim: Simulator, since: number) =>
  sim.requestLog.slice(since).filter((r) => r.client === 'key' && r.kind === 'conversation_list').length;

const WARNING = /^convoduck: space (\S+): the server's count is off: it counts (\d+) conversations in (\S+)\.\.(\S+), (\d+) were served — (\d+) more than served, as in the space's run before, and every conversation stored there was served again: what was served is trusted/m;

async function excessOf(dbPath: string): Promise<{ run_id: number; status: string; excess: number | null }[]> {
  return Database.with(
    dbPath,
    (db) => db.all(`SELECT run_id, status, server_count_excess AS excess FROM sync_runs ORDER BY run_id`),
    { readOnly: true },
  ) as Promise<{ run_id: number; status: string; excess: number | null }[]>;
}

async function syncJson(env: NodeJS.ProcessEnv) {
  const r = await runCli(['sync', '--json'], env);
  return { ...r, summary: JSON.parse(r.stdout) as { status: string; windowFrom: string | null; serverCountExcess: number | null; listingShortfall: number } };
}

describe('a server whose count is off by a constant for good', () => {
  it('is trusted from the second run, then costs only what is new, and a real shortfall is still caught', async () => {
    const sim = await simulator({ seed: 51, conversations: 150, servedPerPage: 100, listTotalExcess: 3 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const everything = () => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

    const run = (extra: Partial<SyncOptions> = {}) => sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, ...extra });

    // First sight: the window is narrowed down and reported short, as any short window.
    expect(await run()).toMatchObject({ status: 'errors', serverCountExcess: 3, countOff: null });

    // The same shortfall again, with everything stored served again: trusted.
    let before = sim.requestLog.length;
    const second = await syncJson(env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.summary).toMatchObject({ status: 'ok', serverCountExcess: 3, listingShortfall: 0, windowFrom: null });
    const warnings = second.stderr.split('\n').filter((l) => WARNING.test(l));
    expect(warnings).toHaveLength(1);
    const m = WARNING.exec(warnings[0]!)!;
    expect({ space: m[1], counted: Number(m[2]), from: m[3], served: Number(m[5]), more: Number(m[6]) }).toEqual({
      space: sim.space,
      counted: 153,
      from: 'beginning',
      served: 150,
      more: 3,
    });
    // one listing of the whole window: two pages of 100
    expect(listRequests(sim, before)).toBeLessThanOrEqual(3);
    await expectStoreMatches(dbPath, everything());

    // From then on: only what is new is listed, and still trusted.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    sim.addConversations(12, { open: false });
    before = sim.requestLog.length;
    const third = await run();
    expect(third).toMatchObject({ status: 'ok', serverCountExcess: 3, listingGap: null });
    expect(third.countOff!.counted - third.countOff!.served).toBe(3);
    expect(third.windowFrom).not.toBeNull();
    expect(listRequests(sim, before)).toBeLessThanOrEqual(2);
    await expectStoreMatches(dbPath, everything());
    expect((await excessOf(dbPath)).map((r) => [r.status, r.excess])).toEqual([
      ['errors', 3],
      ['ok', 3],
      ['ok', 3],
    ]);

    const status = await runCli(['status', '--db', dbPath]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^server count off: space ${sim.space} counts 3 conversations more than it serves in \\S+ … \\S+ \\(run 3\\); what is served is trusted$`, 'm'));
    const statusJson = JSON.parse((await runCli(['status', '--db', dbPath, '--json'])).stdout) as StatusReport;
    expect(statusJson.countOff).toEqual([{ space: sim.space, runId: 3, excess: 3, from: expect.any(String), to: expect.any(String) }]);
    expect(Date.parse(statusJson.countOff[0]!.from!)).toBe(Date.parse(third.windowFrom!));

    // As many missing as before, but one of them a conversation stored before: not trusted.
    sim.setOptions({ listTotalExcess: 2, hiddenFromLists: 1 });
    const lostOne = await run({ full: true, details: { kind: 'none' } });
    expect(lostOne).toMatchObject({ status: 'errors', serverCountExcess: 3, countOff: null });
    sim.setOptions({ listTotalExcess: 3, hiddenFromLists: 0 });

    // Conversations the server then counts but does not serve: more missing than the count is off by.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const fresh = new Set(sim.addConversations(30, { open: false }).map((c) => c.id));
    sim.setOptions({ hiddenFromLists: 60 });
    expect(sim.hiddenConversationIds().some((id) => fresh.has(id))).toBe(true);
    const shifted = await run();
    expect(shifted).toMatchObject({ status: 'errors', countOff: null });
    expect(shifted.listingShortfall).toBeGreaterThan(0);
    expect((await getStatus(dbPath)).countOff).toEqual([]);
  }, 120_000);

  it('soft-deleted rows in old history: trusted by the second run, and the runs after it add up', async () => {
    const sim = await simulator({ seed: 52, conversations: 120, hiddenFromLists: 4 });
    const hidden = new Set(sim.hiddenConversationIds());
    const dbPath = tempDb();
    const run = () => sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    const served = () => ({ conversations: sim.dataset.conversations.filter((c) => !hidden.has(c.id)), detail: (id: string) => sim.dataset.detail(id) });

    expect(await run()).toMatchObject({ status: 'errors', serverCountExcess: 4, countOff: null });
    const second = await run();
    expect(second).toMatchObject({ status: 'ok', serverCountExcess: 4, listingGap: null, countOff: { from: null, counted: 120, served: 116 } });
    await expectStoreMatches(dbPath, served());

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    sim.addConversations(10, { open: false });
    const before = sim.requestLog.length;
    const third = await run();
    expect(third).toMatchObject({ status: 'ok', serverCountExcess: 0, countOff: null });
    expect(listRequests(sim, before)).toBe(1);
    await expectStoreMatches(dbPath, served());
  }, 120_000);
});
