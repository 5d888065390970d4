// Contract tests of the simulator's optional readings of the spec (paging, listing, rate-limit
// algorithms, 429 and key variants, timestamp formats), over real HTTP to 127.0.0.1.

import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { ConversationSummary, ListResponse } from '../src/api/types.js';
import { generateDataset, startSimulator, type Simulator, type SimulatorOptions } from '../src/simulator/index.js';
import { runCli, startCli } from './support/cli.js';

const NOW = new Date('2026-03-02T12:00:00Z');
const dispatcher = new Agent({ connections: 8, keepAliveTimeout: 2_000 });
const started: Simulator[] = [];

async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ now: NOW, rateLimit: 1_000_000, conversations: 300, ...options });
  started.push(sim);
  return sim;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function call(sim: Simulator, path: string, query: Record<string, string | number> = {}): Promise<Reply> {
  const url = new URL(sim.baseUrl + path);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
  const res = await request(url, { headers: { authorization: `Bearer ${sim.apiKey}` }, dispatcher });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

async function listPage<T = ConversationSummary>(sim: Simulator, path: string, query: Record<string, string | number>): Promise<ListResponse<T>> {
  const reply = await call(sim, path, query);
  expect(reply.status, reply.text).toBe(200);
  return JSON.parse(reply.text) as ListResponse<T>;
}

const conversationsPath = (sim: Simulator): string => `/spaces/${sim.space}/conversations`;
const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t));
const header = (reply: Reply, name: string): string | undefined => reply.headers[name] as string | undefined;
const remaining = (reply: Reply): number => Number(header(reply, 'x-ratelimit-remaining'));
const spaces = (sim: Simulator): Promise<Reply> => call(sim, '/spaces');

/** Follows next_page from page 1; returns every page. */
async function walk(sim: Simulator, query: Record<string, string | number> = {}): Promise<ListResponse<ConversationSummary>[]> {
  const pages: ListResponse<ConversationSummary>[] = [];
  for (let page = 1; page < 1000; ) {
    const body = await listPage(sim, conversationsPath(sim), { per_page: 200, ...query, page });
    pages.push(body);
    if (body.meta.next_page === null) return pages;
    expect(body.meta.next_page).toBe(page + 1);
    page = body.meta.next_page;
  }
  throw new Error('next_page never became null');
}

afterAll(async () => {
  for (const sim of started) await sim.close();
  await dispatcher.close();
});

describe('pages and listing', () => {
  it('servedPerPage caps every list: meta.per_page and next_page follow the served size', async () => {
    const sim = await simulator({ servedPerPage: 30, unstableTies: false });
    const ids = sim.dataset.records.map((r) => r.id);

    const first = await listPage(sim, conversationsPath(sim), { per_page: 200 });
    expect(first.data).toHaveLength(30);
    expect(first.meta).toEqual({ page: 1, per_page: 30, total: 300, next_page: 2 });

    const third = await listPage(sim, conversationsPath(sim), { per_page: 200, page: 3 });
    expect(third.data.map((c) => c.id)).toEqual(ids.slice(60, 90));
    expect(third.meta.per_page).toBe(30);

    // A smaller request than the cap is served as asked.
    const small = await listPage(sim, conversationsPath(sim), { per_page: 7, page: 2 });
    expect(small.data.map((c) => c.id)).toEqual(ids.slice(7, 14));
    expect(small.meta.per_page).toBe(7);

    const pages = await walk(sim);
    expect(pages).toHaveLength(10);
    expect(pages[9]!.meta).toEqual({ page: 10, per_page: 30, total: 300, next_page: null });
    expect(pages.flatMap((p) => p.data.map((c) => c.id))).toEqual(ids);

    const agents = await listPage(sim, `/spaces/${sim.space}/agents`, { per_page: 200 });
    expect(agents.data).toHaveLength(Math.min(30, sim.dataset.agents.length));
    sim.setOptions({ servedPerPage: 2 });
    const twoAgents = await listPage(sim, `/spaces/${sim.space}/agents`, { per_page: 200, page: 2 });
    expect(twoAgents.data.map((a: { id: string }) => a.id)).toEqual(sim.dataset.agents.slice(2, 4).map((a) => a.id));
    expect(twoAgents.meta).toEqual({ page: 2, per_page: 2, total: sim.dataset.agents.length, next_page: 3 });
    sim.setOptions({ servedPerPage: null });
    expect((await listPage(sim, conversationsPath(sim), { per_page: 200 })).data).toHaveLength(200);
  });

  it('nextPageOnFullPage points past a full last page, which comes back empty with next_page null', async () => {
    const sim = await simulator({ nextPageOnFullPage: true, unstableTies: false });
    const full = await listPage(sim, conversationsPath(sim), { per_page: 150, page: 2 });
    expect(full.data).toHaveLength(150);
    expect(full.meta).toEqual({ page: 2, per_page: 150, total: 300, next_page: 3 });
    const after = await listPage(sim, conversationsPath(sim), { per_page: 150, page: 3 });
    expect(after).toEqual({ data: [], meta: { page: 3, per_page: 150, total: 300, next_page: null } });

    // A last page that is not full still ends the list.
    const partial = await listPage(sim, conversationsPath(sim), { per_page: 200, page: 2 });
    expect(partial.data).toHaveLength(100);
    expect(partial.meta.next_page).toBeNull();

    // With a cap, fullness is judged on the served size.
    sim.setOptions({ servedPerPage: 100 });
    const capped = await listPage(sim, conversationsPath(sim), { per_page: 200, page: 3 });
    expect(capped.data).toHaveLength(100);
    expect(capped.meta).toEqual({ page: 3, per_page: 100, total: 300, next_page: 4 });

    sim.setOptions({ nextPageOnFullPage: false, servedPerPage: null });
    expect((await listPage(sim, conversationsPath(sim), { per_page: 150, page: 2 })).meta.next_page).toBeNull();
  });

  it('hiddenFromLists counts conversations in totals, never lists them, still serves their detail', async () => {
    const sim = await simulator({ hiddenFromLists: 4, unstableTies: false });
    const ids = sim.dataset.records.map((r) => r.id);
    const hidden = sim.hiddenConversationIds();
    expect(hidden).toHaveLength(4);
    expect(new Set(hidden).size).toBe(4);
    expect(hidden).not.toContain(ids[0]);
    expect(hidden).not.toContain(ids[ids.length - 1]);
    // spread over the history, not bunched together
    const positions = hidden.map((id) => ids.indexOf(id));
    expect(Math.max(...positions) - Math.min(...positions)).toBeGreaterThan(ids.length / 2);

    const pages = await walk(sim, { per_page: 50 });
    const listed = pages.flatMap((p) => p.data.map((c) => c.id));
    expect(pages.every((p) => p.meta.total === 300)).toBe(true);
    expect(listed).toEqual(ids.filter((id) => !hidden.includes(id)));
    // a hidden conversation leaves a hole in its page: positions do not shift
    const holePage = Math.floor(positions[0]! / 50) + 1;
    expect(pages[holePage - 1]!.data.length).toBe(50 - positions.filter((p) => Math.floor(p / 50) + 1 === holePage).length);

    // totals under a filter that matches a hidden conversation still count it
    const target = sim.dataset.record(hidden[1]!)!;
    const byAgent = await walk(sim, { agent_id: target.summary.agent_id, channel: target.summary.channel });
    const expectedIds = ids.filter((id) => {
      const s = sim.dataset.record(id)!.summary;
      return s.agent_id === target.summary.agent_id && s.channel === target.summary.channel;
    });
    expect(byAgent[0]!.meta.total).toBe(expectedIds.length);
    expect(byAgent.flatMap((p) => p.data.map((c) => c.id))).toEqual(expectedIds.filter((id) => !hidden.includes(id)));
    const window = await listPage(sim, conversationsPath(sim), { from: target.summary.started_at, to: target.summary.started_at });
    expect(window.meta.total).toBeGreaterThanOrEqual(1);
    expect(window.data.map((c) => c.id)).not.toContain(target.id);

    for (const id of hidden) {
      const detail = await call(sim, `${conversationsPath(sim)}/${id}`);
      expect(detail.status).toBe(200);
      expect((JSON.parse(detail.text) as { data: { id: string } }).data.id).toBe(id);
    }

    // tie rotation keeps them out too
    sim.setOptions({ unstableTies: true });
    for (let i = 0; i < 3; i++) {
      const all = (await walk(sim, { per_page: 200 })).flatMap((p) => p.data.map((c) => c.id));
      expect(all.filter((id) => hidden.includes(id))).toEqual([]);
    }

    sim.setOptions({ hiddenFromLists: 0 });
    expect(sim.hiddenConversationIds()).toEqual([]);
    sim.setOptions({ unstableTies: false });
    expect((await walk(sim)).flatMap((p) => p.data.map((c) => c.id))).toEqual(ids);
  });

  it('arrivalLagMs adds finished conversations inside an old window, shifting its total and pages', async () => {
    const lagMs = 30 * 60_000;
    const sim = await simulator({ arrivalLagMs: lagMs, unstableTies: false });
    const from = new Date(NOW.getTime() - 2 * 3_600_000).toISOString();
    const to = new Date(NOW.getTime() - 20 * 60_000).toISOString();
    const before = await listPage(sim, conversationsPath(sim), { from, to, per_page: 200 });

    const added = sim.addConversations(2);
    for (const c of added) {
      const startedMs = Date.parse(c.started_at);
      expect(Math.abs(sim.clock().getTime() - lagMs - startedMs)).toBeLessThan(2_000);
      expect(c.outcome).not.toBeNull();
      expect(Date.parse(c.ended_at!)).toBeLessThanOrEqual(sim.clock().getTime());
    }
    const after = await listPage(sim, conversationsPath(sim), { from, to, per_page: 200 });
    expect(after.meta.total).toBe(before.meta.total + 2);
    expect(after.data.map((c) => c.id)).toEqual(expect.arrayContaining(added.map((c) => c.id)));
    // newer conversations (the ones still open) stay in front of the late arrivals
    const newest = await listPage(sim, conversationsPath(sim), { per_page: 1 });
    expect(added.map((c) => c.id)).not.toContain(newest.data[0]!.id);

    // the background arrivals lag the same way
    sim.setOptions({ arrivalsPerMinute: 1_200 });
    await sleep(700);
    sim.setOptions({ arrivalsPerMinute: 0 });
    const late = sim.dataset.records.filter((r) => !added.some((c) => c.id === r.id) && Math.abs(r.startMs - (sim.clock().getTime() - lagMs)) < 5_000);
    expect(late.length).toBeGreaterThanOrEqual(5);
    expect(late.every((r) => !r.open && r.summary.ended_at !== null)).toBe(true);

    // an explicit startedAt wins over the lag
    const explicit = sim.addConversations(1, { startedAt: sim.clock() })[0]!;
    expect(explicit.ended_at).toBeNull();
  });
});

describe('rate-limit algorithms', () => {
  it('fixed: Remaining counts down to 0 and jumps back when the window opened by the first request ends', async () => {
    const sim = await simulator({ rateAlgorithm: 'fixed', rateLimit: 5, windowMs: 2_000 });
    const a = await spaces(sim);
    await spaces(sim);
    await sleep(700);
    const rest = [await spaces(sim), await spaces(sim), await spaces(sim)];
    expect([remaining(a), ...rest.map(remaining)]).toEqual([4, 2, 1, 0]);
    expect(rest.map((r) => r.status)).toEqual([200, 200, 200]);

    const refused = await spaces(sim);
    expect(refused.status).toBe(429);
    expect(remaining(refused)).toBe(0);
    expect(header(refused, 'x-ratelimit-limit')).toBe('5');
    const windowStart = sim.requestLog[0]!.t;
    const refusedAt = sim.requestLog[sim.requestLog.length - 1]!.t;
    expect(Number(header(refused, 'retry-after'))).toBe(Math.max(1, Math.ceil((windowStart + 2_000 - refusedAt) / 1000)));

    // A rolling window would free only the two early requests here; a fixed one frees all five.
    await sleep(Math.max(0, windowStart + 2_050 - Date.now()));
    const fresh = [];
    for (let i = 0; i < 5; i++) fresh.push(await spaces(sim));
    expect(fresh.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(fresh.map(remaining)).toEqual([4, 3, 2, 1, 0]);
    expect((await spaces(sim)).status).toBe(429);
  });

  it('bucket: a burst of `burst` is accepted, then one request per refill interval', async () => {
    // 6 tokens per 6 s: one token a second.
    const sim = await simulator({ rateAlgorithm: 'bucket', rateLimit: 6, windowMs: 6_000, burst: 4 });
    const burst = [];
    for (let i = 0; i < 5; i++) burst.push(await spaces(sim));
    expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
    expect(burst.slice(0, 4).map(remaining)).toEqual([3, 2, 1, 0]);
    expect(header(burst[4]!, 'x-ratelimit-limit')).toBe('6');
    expect(header(burst[4]!, 'retry-after')).toBe('1');

    await sleep(1_050);
    expect((await spaces(sim)).status).toBe(200);
    expect((await spaces(sim)).status).toBe(429);

    // Hammering for ~3 s gets about one request a second through.
    const t0 = Date.now();
    let accepted = 0;
    while (Date.now() - t0 < 3_000) {
      if ((await spaces(sim)).status === 200) accepted++;
      await sleep(20);
    }
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(accepted).toBeLessThanOrEqual(4);
  });

  it('bucket: the default burst is a sixth of the rate and follows rateLimit until set', async () => {
    const sim = await simulator({ rateAlgorithm: 'bucket', rateLimit: 30, windowMs: 60_000 });
    expect(sim.options.burst).toBe(5);
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await spaces(sim));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(header(replies[5]!, 'retry-after')).toBe('2');
    sim.setOptions({ rateLimit: 600 });
    expect(sim.options.burst).toBe(100);
    sim.setOptions({ burst: 3, rateLimit: 60 });
    expect(sim.options.burst).toBe(3);
  });

  it.each(['rolling', 'fixed', 'bucket'] as const)('%s: the other client spends the same key', async (rateAlgorithm) => {
    const sim = await simulator({ rateAlgorithm, rateLimit: 10, windowMs: 60_000, burst: 10, otherClientRpm: 300 });
    await sleep(1_000);
    sim.setOptions({ otherClientRpm: 0 });
    const others = sim.requestLog.filter((e) => e.client === 'other');
    expect(others.length).toBeGreaterThanOrEqual(3);
    expect(others.every((e) => e.status === 200)).toBe(true);
    const mine = await spaces(sim);
    expect(mine.status).toBe(200);
    expect(remaining(mine)).toBe(10 - others.length - 1);

    sim.setOptions({ otherClientRpm: 6_000 });
    await sleep(400);
    sim.setOptions({ otherClientRpm: 0 });
    expect(sim.requestLog.some((e) => e.client === 'other' && e.status === 429)).toBe(true);
    expect((await spaces(sim)).status).toBe(429);
  });
});

describe('429 and key variants', () => {
  it('retryAfter missing sends a 429 without Retry-After; long sends 3 × windowMs', async () => {
    const sim = await simulator({ rateAlgorithm: 'fixed', rateLimit: 1, windowMs: 1_500, retryAfter: 'missing' });
    expect((await spaces(sim)).status).toBe(200);
    const missing = await spaces(sim);
    expect(missing.status).toBe(429);
    expect(header(missing, 'retry-after')).toBeUndefined();
    expect(header(missing, 'x-ratelimit-remaining')).toBe('0');
    expect(JSON.parse(missing.text)).toMatchObject({ code: 'rate_limited' });
    expect(JSON.parse(missing.text)).not.toHaveProperty('retry_after');

    sim.setOptions({ retryAfter: 'long' });
    const long = await spaces(sim);
    expect(long.status).toBe(429);
    expect(header(long, 'retry-after')).toBe('5');
    expect(Number(header(long, 'retry-after')) * 1000).toBeGreaterThan(sim.options.windowMs);

    sim.setOptions({ retryAfter: 'exact' });
    const exact = await spaces(sim);
    expect(exact.status).toBe(429);
    expect(Number(header(exact, 'retry-after'))).toBeLessThanOrEqual(2);
  });

  it('revokeKeyAfter: once that many requests were accepted, every request gets 401 unauthenticated', async () => {
    const sim = await simulator({ rateAlgorithm: 'fixed', rateLimit: 2, windowMs: 1_500, revokeKeyAfter: 3 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await spaces(sim)).status);
    expect(statuses).toEqual([200, 200, 429]); // a 429 is not accepted, so it does not count
    await sleep(1_550);
    expect((await spaces(sim)).status).toBe(200);
    const revoked = await call(sim, conversationsPath(sim));
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.text)).toMatchObject({ code: 'unauthenticated' });
    expect(header(revoked, 'x-ratelimit-limit')).toBe('2');
    expect((await spaces(sim)).status).toBe(401);
    sim.setOptions({ otherClientRpm: 6_000 });
    await sleep(100);
    sim.setOptions({ otherClientRpm: 0 });
    const otherStatuses = sim.requestLog.filter((e) => e.client === 'other').map((e) => e.status);
    expect(otherStatuses.length).toBeGreaterThan(0);
    expect(new Set(otherStatuses)).toEqual(new Set([401]));

    sim.setOptions({ revokeKeyAfter: null, rateLimit: 100 });
    expect((await spaces(sim)).status).toBe(200);
    sim.setOptions({ revokeKeyAfter: 1 });
    expect((await spaces(sim)).status).toBe(200);
    expect((await spaces(sim)).status).toBe(401);
  });

  it('requestLog records t, status and client of every request', async () => {
    const sim = await simulator({ rateAlgorithm: 'bucket', rateLimit: 60, windowMs: 60_000, burst: 2, revokeKeyAfter: 2 });
    const t0 = Date.now();
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await spaces(sim)).status);
    sim.setOptions({ revokeKeyAfter: null, rateLimit: 1_000_000, burst: 1_000_000 });
    await sleep(20);
    statuses.push((await spaces(sim)).status);
    const log = sim.requestLog.filter((e) => e.client === 'key');
    expect(log.map((e) => e.status)).toEqual(statuses);
    expect(statuses).toEqual([200, 200, 401, 200]);
    for (const e of log) {
      expect(e.t).toBeGreaterThanOrEqual(t0);
      expect(e.t).toBeLessThanOrEqual(Date.now());
    }
  });
});

describe('timestamp formats', () => {
  const DATE_TIME = String.raw`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}`;
  const SHAPES: Record<'z' | 'offset' | 'fraction-z' | 'fraction-offset', RegExp> = {
    z: new RegExp(`^${DATE_TIME}Z$`),
    offset: new RegExp(`^${DATE_TIME}[+-](?!00:00)\\d{2}:\\d{2}$`),
    'fraction-z': new RegExp(`^${DATE_TIME}\\.\\d{6}Z$`),
    'fraction-offset': new RegExp(`^${DATE_TIME}\\.\\d{6}[+-](?!00:00)\\d{2}:\\d{2}$`),
  };

  interface Served {
    conversations: { id: string; stamps: [string, string][] }[];
    records: [string, string][];
  }

  /** Every served timestamp paired with the dataset's own string for the same field. */
  async function servedStamps(sim: Simulator): Promise<Served> {
    const list = await listPage(sim, conversationsPath(sim), { per_page: 200 });
    const byId = new Map(sim.dataset.records.map((r) => [r.id, r.summary]));
    const conversations = list.data.map((c) => {
      const own = byId.get(c.id)!;
      const stamps: [string, string][] = [[c.started_at, own.started_at]];
      if (c.ended_at !== null) stamps.push([c.ended_at, own.ended_at!]);
      return { id: c.id, stamps };
    });
    // Details of the first conversations, the open ones included.
    for (const c of conversations.slice(0, 12)) {
      const reply = await call(sim, `${conversationsPath(sim)}/${c.id}`);
      const served = (JSON.parse(reply.text) as { data: import('../src/api/types.js').ConversationDetail }).data;
      const own = sim.dataset.detail(c.id)!;
      c.stamps.push([served.started_at, own.started_at]);
      if (served.ended_at !== null) c.stamps.push([served.ended_at, own.ended_at!]);
      for (const key of ['transcript', 'tool_calls', 'node_path'] as const) {
        const entries = served[key] ?? [];
        expect(entries.length).toBe((own[key] ?? []).length);
        entries.forEach((e, i) => c.stamps.push([e.at, own[key]![i]!.at]));
      }
    }
    const records: [string, string][] = [];
    const collections = [
      ['agents', sim.dataset.agents],
      ['tools', sim.dataset.tools],
      ['connections', sim.dataset.connections],
    ] as const;
    for (const [name, own] of collections) {
      const page = await listPage<Record<string, unknown>>(sim, `/spaces/${sim.space}/${name}`, { per_page: 200 });
      const one = JSON.parse((await call(sim, `/spaces/${sim.space}/${name}/${own[0]!.id}`)).text) as { data: Record<string, unknown> };
      for (const served of [...page.data, one.data]) {
        const mine = (own as readonly { id: string }[]).find((r) => r.id === served.id) as unknown as Record<string, unknown>;
        for (const field of ['created_at', 'updated_at', 'last_synced_at']) {
          if (field in mine) records.push([served[field] as string, mine[field] as string]);
        }
      }
    }
    return { conversations, records };
  }

  it.each(['z', 'offset', 'fraction-z', 'fraction-offset'] as const)('%s: every served timestamp has that form and the generated instant', async (timeFormat) => {
    const sim = await simulator({ timeFormat, exoticValues: true, conversations: 400 });
    const { conversations, records } = await servedStamps(sim);
    const all = [...conversations.flatMap((c) => c.stamps), ...records];
    expect(all.length).toBeGreaterThan(300);
    for (const [served, own] of all) {
      expect(served).toMatch(SHAPES[timeFormat]);
      expect(Date.parse(served), `${served} vs ${own}`).toBe(Date.parse(own));
    }
    if (timeFormat.includes('offset')) {
      // one offset per record, several across records
      const offsetOf = (s: string): string => s.slice(-6);
      for (const c of conversations) expect(new Set(c.stamps.map(([s]) => offsetOf(s))).size).toBe(1);
      expect(new Set(conversations.map((c) => offsetOf(c.stamps[0]![0]))).size).toBeGreaterThanOrEqual(4);
    }
    if (timeFormat.startsWith('fraction')) {
      // the fraction forms come with instants inside the second
      const fractions = conversations.map((c) => /\.(\d{6})/.exec(c.stamps[0]![0])![1]!);
      expect(fractions.filter((f) => f !== '000000').length).toBeGreaterThan(conversations.length / 2);
      expect(fractions.every((f) => f.endsWith('000'))).toBe(true);
    }
  });

  it('switches form at run time for the same instants; as-generated serves the dataset’s strings', async () => {
    const sim = await simulator({ exoticValues: true });
    const generated = await servedStamps(sim);
    for (const [served, own] of [...generated.conversations.flatMap((c) => c.stamps), ...generated.records]) expect(served).toBe(own);

    sim.setOptions({ timeFormat: 'fraction-z' });
    const fraction = await servedStamps(sim);
    for (const [served, own] of [...fraction.conversations.flatMap((c) => c.stamps), ...fraction.records]) {
      expect(served).toMatch(SHAPES['fraction-z']);
      expect(served.slice(19, 26)).toBe('.000000'); // this dataset has whole seconds
      expect(Date.parse(served)).toBe(Date.parse(own));
    }
  });

  it('from/to filters select by instant whatever the form', async () => {
    const sim = await simulator({ timeFormat: 'fraction-offset', unstableTies: false });
    const target = sim.dataset.records[100]!;
    const page = await listPage(sim, conversationsPath(sim), { from: new Date(target.startMs).toISOString(), to: new Date(target.startMs).toISOString() });
    expect(page.data.map((c) => c.id)).toContain(target.id);
    for (const c of page.data) expect(Date.parse(c.started_at)).toBe(target.startMs);
  });
});

describe('convoduck simulate flags', () => {
  /** Starts `convoduck simulate` with these flags, runs `use` against it, stops it. */
  async function withCli(flags: string[], use: (base: string, key: string) => Promise<void>): Promise<string> {
    const run = startCli(['simulate', '--port', '0', '--conversations', '60', ...flags]);
    let out = '';
    run.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = run.done.then((r) => r);
    for (let i = 0; i < 200 && !/CONVODUCK_API_KEY=\S+\n/.test(out); i++) await sleep(50);
    const base = /CONVODUCK_BASE_URL=(\S+)/.exec(out)?.[1];
    const key = /CONVODUCK_API_KEY=(\S+)/.exec(out)?.[1];
    try {
      expect(base, out).toBeDefined();
      await use(base!, key!);
    } finally {
      run.child.kill('SIGTERM');
    }
    const result = await exited;
    expect(result.code).toBe(0);
    return result.stderr;
  }

  async function get(base: string, key: string, path: string, query: Record<string, string | number> = {}): Promise<Reply> {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    const res = await request(url, { headers: { authorization: `Bearer ${key}` }, dispatcher });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  it('play the listing, bucket, long Retry-After and time-format readings', async () => {
    const stderr = await withCli(
      ['--served-per-page', '7', '--per-page-as-asked', '--next-page-on-full-page', '--hidden-from-lists', '2', '--time-format', 'fraction-offset',
        '--rate-algorithm', 'bucket', '--rate-limit', '6', '--burst', '4', '--retry-after', 'long'],
      async (base, key) => {
        const space = (JSON.parse((await get(base, key, '/spaces')).text) as { data: { slug: string }[] }).data[0]!.slug;
        const path = `/spaces/${space}/conversations`;
        const last = JSON.parse((await get(base, key, path, { per_page: 200, page: 9 })).text) as ListResponse<ConversationSummary>;
        // 60 at 7 per page: page 9 holds positions 56..59, not a full page; meta.per_page says what was asked
        expect(last.meta).toEqual({ page: 9, per_page: 200, total: 60, next_page: null });
        expect(last.data.length).toBeLessThanOrEqual(4);
        const first = JSON.parse((await get(base, key, path, { per_page: 200 })).text) as ListResponse<ConversationSummary>;
        expect(first.meta).toEqual({ page: 1, per_page: 200, total: 60, next_page: 2 });
        expect(first.data.length).toBeLessThanOrEqual(7);
        for (const c of first.data) expect(c.started_at).toMatch(/\.\d{6}[+-](?!00:00)\d{2}:\d{2}$/);
        // three requests so far; a token comes back every 10 s
        const fourth = await get(base, key, '/spaces');
        const fifth = await get(base, key, '/spaces');
        expect([fourth.status, remaining(fourth), fifth.status]).toEqual([200, 0, 429]);
        expect(header(fifth, 'retry-after')).toBe('180');
        expect(header(fifth, 'x-ratelimit-limit')).toBe('6');
      },
    );
    expect(stderr).toContain('token bucket of 4');
  });

  it('play a fixed window and a key deleted mid-run', async () => {
    await withCli(['--rate-algorithm', 'fixed', '--rate-limit', '3', '--window-ms', '60000', '--retry-after', 'missing', '--revoke-key-after', '4', '--arrival-lag', '60000'], async (base, key) => {
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await get(base, key, '/spaces'));
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
      expect(replies.map(remaining)).toEqual([2, 1, 0, 0]);
      expect(header(replies[3]!, 'retry-after')).toBeUndefined();
    });
    await withCli(['--revoke-key-after', '2', '--rate-limit', '100'], async (base, key) => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(base, key, '/spaces')).status);
      expect(statuses).toEqual([200, 200, 401, 401]);
    });
  });

  it('serve the space under --slug; without it each seed has a slug of its own', async () => {
    await withCli(['--slug', 'acme-prod'], async (base, key) => {
      const spaces = await get(base, key, '/spaces');
      expect(spaces.text).toContain('"slug":"acme-prod"');
    });
    const slugs = new Set(Array.from({ length: 200 }, (_, seed) => generateDataset({ seed, conversations: 0, now: new Date('2026-11-20T00:00:00Z') }).space.slug));
    expect(slugs.size).toBe(200);
  });

  it.each([
    [['--slug', 'Acme Prod'], /--slug "Acme Prod" must be lower-case letters and digits/],
    [['--rate-algorithm', 'sliding'], /--rate-algorithm "sliding" is not known — use one of rolling, fixed, bucket/],
    [['--retry-after', 'never'], /--retry-after "never" is not known/],
    [['--time-format', 'unix'], /--time-format "unix" is not known — use one of as-generated, z, offset, fraction-z, fraction-offset/],
    [['--served-per-page', '0'], /--served-per-page "0" must be a whole number from 1 to 200/],
    [['--burst', 'lots'], /--burst "lots" must be a whole number/],
  ])('reject %j with one line and exit 2', async (flags, message) => {
    const result = await runCli(['simulate', '--port', '0', ...flags]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).toBe('');
  });
});
