// Contract tests of the built-in simulator against shared/api/agent-management-api.md,
// over real HTTP (undici) to an in-process server on an ephemeral 127.0.0.1 port.

import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AgentDetail,
  ConnectionDetail,
  ConversationDetail,
  ConversationSummary,
  ErrorBody,
  ListResponse,
  Space,
  Tool,
} from '../src/api/types.js';
import { generateDataset, startSimulator, type Simulator, type SimulatorOptions } from '../src/simulator/index.js';

const NOW = new Date('2026-03-02T12:00:00Z');
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const dispatcher = new Agent({ connections: 8, keepAliveTimeout: 2_000 });
const started: Simulator[] = [];

async function simulator(options: SimulatorOptions): Promise<Simulator> {
  const sim = await startSimulator({ now: NOW, rateLimit: 1_000_000, ...options });
  started.push(sim);
  return sim;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

async function call(
  sim: Simulator,
  path: string,
  opts: { query?: Record<string, string | number>; key?: string | null; method?: 'GET' | 'POST' | 'DELETE'; via?: Agent } = {},
): Promise<Reply> {
  const url = new URL(sim.baseUrl + path);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const key = opts.key === undefined ? sim.apiKey : opts.key;
  const res = await request(url, {
    method: opts.method ?? 'GET',
    headers: key === null ? {} : { authorization: `Bearer ${key}` },
    dispatcher: opts.via ?? dispatcher,
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

function json<T>(reply: Reply): T {
  return JSON.parse(reply.text) as T;
}

async function listAll<T>(sim: Simulator, path: string, query: Record<string, string> = {}): Promise<ListResponse<T>[]> {
  const pages: ListResponse<T>[] = [];
  for (let page = 1; ; page++) {
    const reply = await call(sim, path, { query: { ...query, per_page: 200, page } });
    expect(reply.status).toBe(200);
    const body = json<ListResponse<T>>(reply);
    pages.push(body);
    if (body.meta.next_page === null) return pages;
    expect(body.meta.next_page).toBe(page + 1);
  }
}

async function allConversations(sim: Simulator, query: Record<string, string> = {}): Promise<ConversationSummary[]> {
  return (await listAll<ConversationSummary>(sim, `/spaces/${sim.space}/conversations`, query)).flatMap((p) => p.data);
}

const ms = (iso: string | null): number => (iso === null ? NaN : Date.parse(iso));
const sleep = (t: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, t));

afterAll(async () => {
  for (const sim of started) await sim.close();
  await dispatcher.close();
});

describe('simulator contract', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await simulator({ seed: 7, conversations: 400, unstableTies: false });
  });

  it('GET /spaces returns the key’s space with its slug', async () => {
    const reply = await call(sim, '/spaces');
    expect(reply.status).toBe(200);
    const body = json<ListResponse<Space>>(reply);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.slug).toBe(sim.space);
    expect(body.data[0]!.llm_options.length).toBeGreaterThan(0);
    expect(body.meta).toEqual({ page: 1, per_page: 50, total: 1, next_page: null });
    expect(sim.apiKey.startsWith('np_')).toBe(true);
    expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
  });

  it('pages conversations newest first with totals and next_page (null on the last page)', async () => {
    const expected = sim.dataset.conversations;
    const seen: ConversationSummary[] = [];
    for (let page = 1; ; page++) {
      const body = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 37, page } }));
      expect(body.meta.total).toBe(expected.length);
      expect(body.meta.page).toBe(page);
      expect(body.meta.per_page).toBe(37);
      seen.push(...body.data);
      if (page * 37 < expected.length) {
        expect(body.data).toHaveLength(37);
        expect(body.meta.next_page).toBe(page + 1);
      } else {
        expect(body.meta.next_page).toBeNull();
        break;
      }
    }
    expect(seen.map((c) => c.id)).toEqual(expected.map((c) => c.id));
    for (let i = 1; i < seen.length; i++) expect(ms(seen[i - 1]!.started_at)).toBeGreaterThanOrEqual(ms(seen[i]!.started_at));
    // the list leaves the detail fields out
    expect(Object.keys(seen[0]!)).not.toContain('transcript');
    expect(Object.keys(seen[0]!)).not.toContain('tool_calls');
    expect(Object.keys(seen[0]!)).not.toContain('node_path');
    expect(Object.keys(seen[0]!)).not.toContain('recording_url');

    const def = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`));
    expect(def.data).toHaveLength(50);
    expect(def.meta).toMatchObject({ page: 1, per_page: 50, next_page: 2 });
    const past = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { page: 99 } }));
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({ page: 99, per_page: 50, total: expected.length, next_page: null });
    const exact = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 200, page: 2 } }));
    expect(exact.data).toHaveLength(200);
    expect(exact.meta.next_page).toBeNull();
  });

  it('filters by agent_id, channel, outcome and an inclusive from/to', async () => {
    const all = sim.dataset.conversations;
    const agentId = all[0]!.agent_id;
    const byAgent = await allConversations(sim, { agent_id: agentId });
    expect(byAgent.length).toBe(all.filter((c) => c.agent_id === agentId).length);
    expect(byAgent.every((c) => c.agent_id === agentId)).toBe(true);

    for (const channel of ['voice', 'chat']) {
      const got = await allConversations(sim, { channel });
      expect(got.length).toBe(all.filter((c) => c.channel === channel).length);
      expect(got.length).toBeGreaterThan(0);
      expect(got.every((c) => c.channel === channel)).toBe(true);
    }
    for (const outcome of ['completed', 'transferred', 'hung_up', 'failed']) {
      const got = await allConversations(sim, { outcome });
      expect(got.length).toBe(all.filter((c) => c.outcome === outcome).length);
      expect(got.length).toBeGreaterThan(0);
      expect(got.every((c) => c.outcome === outcome)).toBe(true);
    }

    const from = all[250]!.started_at;
    const to = all[100]!.started_at;
    const inRange = all.filter((c) => ms(c.started_at) >= ms(from) && ms(c.started_at) <= ms(to));
    const got = await allConversations(sim, { from, to });
    expect(got.map((c) => c.id)).toEqual(inRange.map((c) => c.id));
    expect(got.map((c) => c.id)).toContain(all[250]!.id);
    expect(got.map((c) => c.id)).toContain(all[100]!.id);
    // the same instants written with an offset select the same conversations
    const shift = (iso: string): string => new Date(ms(iso) + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00';
    expect((await allConversations(sim, { from: shift(from), to: shift(to) })).map((c) => c.id)).toEqual(inRange.map((c) => c.id));
    expect((await allConversations(sim, { from: to, to: to })).every((c) => c.started_at === to)).toBe(true);
    expect(await allConversations(sim, { from: to, to: from })).toEqual([]);

    const combined = await allConversations(sim, { from, to, channel: 'voice', agent_id: agentId });
    expect(combined.map((c) => c.id)).toEqual(inRange.filter((c) => c.channel === 'voice' && c.agent_id === agentId).map((c) => c.id));
    expect(await allConversations(sim, { agent_id: '00000000-0000-4000-8000-000000000000' })).toEqual([]);
  });

  it('answers 401, 403, 404, 405 and 422 with the documented bodies', async () => {
    for (const key of [null, 'np_wrong']) {
      const reply = await call(sim, `/spaces/${sim.space}/agents`, { key });
      expect(reply.status).toBe(401);
      const body = json<ErrorBody>(reply);
      expect(body.code).toBe('unauthenticated');
      expect(body.message).toMatch(/Bearer token in the Authorization header/);
    }
    const forbidden = await call(sim, '/spaces/some-other-space/conversations');
    expect(forbidden.status).toBe(403);
    expect(json<ErrorBody>(forbidden).code).toBe('forbidden');

    for (const path of [
      `/spaces/${sim.space}/conversations/00000000-0000-4000-8000-000000000000`,
      `/spaces/${sim.space}/conversations/not-a-uuid`,
      `/spaces/${sim.space}/agents/00000000-0000-4000-8000-000000000000`,
      `/spaces/${sim.space}/tools/00000000-0000-4000-8000-000000000000`,
      `/spaces/${sim.space}/connections/00000000-0000-4000-8000-000000000000`,
      `/spaces/${sim.space}/nothing-here`,
      '/nothing',
    ]) {
      const reply = await call(sim, path);
      expect(reply.status, path).toBe(404);
      const body = json<ErrorBody>(reply);
      expect(body.code).toBe('not_found');
      expect(typeof body.message).toBe('string');
    }
    const post = await call(sim, `/spaces/${sim.space}/agents`, { method: 'POST' });
    expect(post.status).toBe(405);

    const bad: Record<string, string>[] = [
      { per_page: '201' },
      { per_page: '0' },
      { page: '0' },
      { page: '1.5' },
      { page: 'two' },
      { from: 'yesterday' },
      { to: '2026-13-45T00:00:00Z' },
      { to: '2026-03-01T10:00:00 02:00' }, // an unencoded '+' arrives as a space
      { channel: 'fax' },
      { outcome: 'won' },
      { agent_id: 'agent-1' },
    ];
    for (const query of bad) {
      const reply = await call(sim, `/spaces/${sim.space}/conversations`, { query });
      expect(reply.status, JSON.stringify(query)).toBe(422);
      const body = json<ErrorBody & { errors: Record<string, string[]> }>(reply);
      expect(body.code).toBe('validation_failed');
      expect(Object.keys(body.errors)).toEqual(Object.keys(query));
    }
    expect((await call(sim, `/spaces/${sim.space}/agents`, { query: { status: 'deleted' } })).status).toBe(422);
    expect((await call(sim, `/spaces/${sim.space}/tools`, { query: { per_page: 500 } })).status).toBe(422);
    expect((await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 200, from: '2026-02-20', to: '2026-03-01T23:59:59.999Z' } })).status).toBe(200);
  });

  it('serves agents, tools and connections as the spec describes', async () => {
    const agents = (await listAll<AgentDetail>(sim, `/spaces/${sim.space}/agents`)).flatMap((p) => p.data);
    expect(agents.length).toBeGreaterThanOrEqual(5);
    expect(agents.length).toBeLessThanOrEqual(8);
    expect(agents.filter((a) => a.status === 'paused')).toHaveLength(1);
    expect(agents.filter((a) => a.status === 'draft')).toHaveLength(1);
    for (const a of agents) {
      expect(a).not.toHaveProperty('behavior');
      expect(a).not.toHaveProperty('workflow');
      expect(a.space).toBe(sim.space);
      expect(a.id).toMatch(UUID_V4);
    }
    const paused = json<ListResponse<AgentDetail>>(await call(sim, `/spaces/${sim.space}/agents`, { query: { status: 'paused' } }));
    expect(paused.data.map((a) => a.status)).toEqual(['paused']);
    const search = json<ListResponse<AgentDetail>>(await call(sim, `/spaces/${sim.space}/agents`, { query: { search: 'ORDER sup' } }));
    expect(search.data.map((a) => a.name)).toEqual(['Order Support']);
    const paged = json<ListResponse<AgentDetail>>(await call(sim, `/spaces/${sim.space}/agents`, { query: { per_page: 2, page: 2 } }));
    expect(paged.data.map((a) => a.id)).toEqual(agents.slice(2, 4).map((a) => a.id));
    expect(paged.meta.total).toBe(agents.length);

    const draft = agents.find((a) => a.status === 'draft')!;
    expect(await allConversations(sim, { agent_id: draft.id })).toEqual([]);
    const pausedAgent = agents.find((a) => a.status === 'paused')!;
    const pausedConvs = await allConversations(sim, { agent_id: pausedAgent.id });
    expect(pausedConvs.length).toBeGreaterThan(0);
    expect(pausedConvs.every((c) => ms(c.started_at) < ms(pausedAgent.updated_at))).toBe(true);

    const full = json<{ data: AgentDetail }>(await call(sim, `/spaces/${sim.space}/agents/${agents[0]!.id}`)).data;
    expect(full.workflow.start_node).toBe('greeting');
    expect(Object.keys(full.workflow.nodes)).toEqual(Object.keys(full.workflow.edges));
    expect(full.behavior.blocks.length).toBeGreaterThan(0);
    expect(typeof full.behavior.rendered_prompt).toBe('string');

    const tools = (await listAll<Tool>(sim, `/spaces/${sim.space}/tools`)).flatMap((p) => p.data);
    expect(tools.length).toBeGreaterThanOrEqual(6);
    expect(tools.length).toBeLessThanOrEqual(10);
    for (const t of tools) {
      expect(t.slug).toMatch(/^[a-z0-9_]+$/);
      expect(t.recipe.kind).toBe('fetch');
      expect(Object.values(t.recipe.sources)[0]!.params[0]!.from).toBe('llm');
    }
    expect(new Set(agents.flatMap((a) => a.tool_ids)).size).toBeGreaterThan(0);
    for (const id of agents.flatMap((a) => a.tool_ids)) expect(tools.map((t) => t.id)).toContain(id);

    const connections = (await listAll<ConnectionDetail>(sim, `/spaces/${sim.space}/connections`)).flatMap((p) => p.data);
    expect(connections.length).toBeGreaterThanOrEqual(2);
    expect(connections.length).toBeLessThanOrEqual(3);
    for (const c of connections) {
      expect(c).not.toHaveProperty('tools');
      expect(c.base_url.startsWith('https://')).toBe(true);
      const own = tools.filter((t) => t.connection_id === c.id);
      expect(c.tool_count).toBe(own.length);
      const byConn = json<ListResponse<Tool>>(await call(sim, `/spaces/${sim.space}/tools`, { query: { connection_id: c.id } }));
      expect(byConn.data.map((t) => t.id)).toEqual(own.map((t) => t.id));
      const detail = json<{ data: ConnectionDetail }>(await call(sim, `/spaces/${sim.space}/connections/${c.id}`)).data;
      expect(detail.tools).toEqual(own.map((t) => ({ id: t.id, slug: t.slug, name: t.name })));
    }
    const oneTool = json<{ data: Tool }>(await call(sim, `/spaces/${sim.space}/tools/${tools[3]!.id}`)).data;
    expect(oneTool).toEqual(tools[3]);
  });

  it('serves details consistent with the list and the agent’s workflow', async () => {
    const agents = new Map<string, AgentDetail>();
    for (const a of sim.dataset.agents) {
      agents.set(a.id, json<{ data: AgentDetail }>(await call(sim, `/spaces/${sim.space}/agents/${a.id}`)).data);
    }
    const list = await allConversations(sim);
    const details: ConversationDetail[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < list.length) {
          const c = list[next++]!;
          const reply = await call(sim, `/spaces/${sim.space}/conversations/${c.id}`);
          expect(reply.status).toBe(200);
          details.push(json<{ data: ConversationDetail }>(reply).data);
        }
      }),
    );
    const byId = new Map(details.map((d) => [d.id, d]));
    let toolCalls = 0;
    let failedCalls = 0;
    const texts: string[] = [];
    let openCount = 0;
    for (const c of list) {
      const d = byId.get(c.id)!;
      const { transcript, tool_calls, node_path, recording_url, ...summaryPart } = d;
      expect(summaryPart).toEqual(c);
      expect(d.id).toMatch(UUID_V4);
      expect(transcript!.length).toBe(d.message_count);
      const agent = agents.get(d.agent_id)!;
      expect(agent.status).not.toBe('draft');
      const edges = agent.workflow.edges as Record<string, string[]>;
      const nodes = agent.workflow.nodes as Record<string, { type: string }>;
      const start = ms(d.started_at);
      const end = d.ended_at === null ? ms(c.started_at) + 3_600_000 : ms(d.ended_at);
      if (d.ended_at === null) {
        openCount++;
        expect(d.outcome).toBeNull();
        expect(d.duration_sec).toBeNull();
      } else {
        expect(d.duration_sec).toBe((ms(d.ended_at) - start) / 1000);
      }
      // node_path walks the workflow from its start along edges
      expect(node_path[0]!.node_key).toBe(agent.workflow.start_node);
      for (let i = 1; i < node_path.length; i++) {
        expect(edges[node_path[i - 1]!.node_key]).toContain(node_path[i]!.node_key);
      }
      // timestamps non-decreasing and inside [started_at, ended_at]
      for (const entries of [transcript!, tool_calls, node_path]) {
        let prev = start;
        for (const e of entries) {
          expect(ms(e.at)).toBeGreaterThanOrEqual(prev);
          expect(ms(e.at)).toBeLessThanOrEqual(end);
          prev = ms(e.at);
        }
      }
      // transcript node keys follow node_path in order
      let p = 0;
      for (const turn of transcript!) {
        while (p < node_path.length && node_path[p]!.node_key !== turn.node_key) p++;
        expect(p, `${d.id}: turn at ${turn.node_key} not on the path`).toBeLessThan(node_path.length);
        expect(['caller', 'agent']).toContain(turn.speaker);
        texts.push(turn.text);
      }
      const visited = new Set(node_path.map((n) => n.node_key));
      for (const call of tool_calls) {
        expect(visited.has(call.node_key)).toBe(true);
        expect(agent.tool_ids).toContain(call.tool_id);
        toolCalls++;
        if (call.status !== 'ok') failedCalls++;
      }
      const lastNode = node_path.at(-1)!.node_key;
      const lastType = nodes[lastNode]!.type;
      if (d.outcome === 'completed') expect(lastType).toBe('end');
      if (d.outcome === 'transferred') expect(lastType).toBe('transfer');
      if (d.outcome === 'hung_up') expect(['end', 'transfer']).not.toContain(lastType);
      if (d.outcome === 'failed') {
        expect(['end', 'transfer']).not.toContain(lastType);
        if (lastType === 'tool') expect(tool_calls.at(-1)!.status).not.toBe('ok');
      }
      if (d.channel === 'chat') {
        expect(d.session_ref).toEqual(expect.any(String));
        expect(d.page_url).toMatch(/^https:\/\//);
        expect(recording_url).toBeNull();
      } else {
        expect(d.session_ref).toBeNull();
        expect(d.page_url).toBeNull();
        if (recording_url !== null) expect(recording_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/recordings\/.+X-Amz-Signature=[0-9a-f]{64}/);
      }
      expect(d.direction).toBe('inbound');
    }
    // the newest 3–5 are in progress, everything else is finished
    expect(openCount).toBeGreaterThanOrEqual(3);
    expect(openCount).toBeLessThanOrEqual(5);
    expect(list.slice(0, openCount).every((c) => c.ended_at === null)).toBe(true);
    expect(failedCalls / toolCalls).toBeGreaterThan(0.03);
    expect(failedCalls / toolCalls).toBeLessThan(0.2);
    const all = texts.join('\u0000');
    expect(all).toMatch(/[éüöä]/);
    expect(all).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    expect(all).toMatch(/\p{Extended_Pictographic}/u);
    expect(all).toContain('"');
    expect(all).toContain('\n');
    expect(texts.some((t) => /^[=+\-@]/.test(t))).toBe(true);
    const lengths = list.map((c) => c.message_count);
    expect(lengths.filter((n) => n >= 4 && n <= 40).length / lengths.length).toBeGreaterThan(0.85);
  });

  it('puts X-RateLimit headers on every response, including errors', async () => {
    const tiny = await simulator({ seed: 3, conversations: 20, rateLimit: 3 });
    const replies = [
      await call(tiny, '/spaces'),
      await call(tiny, '/spaces', { key: null }),
      await call(tiny, `/spaces/${tiny.space}/conversations/00000000-0000-4000-8000-000000000000`),
      await call(tiny, `/spaces/${tiny.space}/conversations`, { query: { per_page: 0 } }),
      await call(tiny, '/spaces'),
    ];
    expect(replies.map((r) => r.status)).toEqual([200, 401, 404, 422, 429]);
    expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '2', '1', '0', '0']);
    for (const r of replies) expect(r.headers['x-ratelimit-limit']).toBe('3');
    expect(replies[4]!.headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('rate limit', () => {
  it('rejects a burst over the rolling window with 429 and an exact Retry-After; 429s do not count', async () => {
    const windowMs = 2_000;
    const sim = await simulator({ seed: 5, conversations: 30, rateLimit: 5, windowMs });
    const accepted = (): number[] => sim.requestLog.filter((r) => r.status !== 429).map((r) => r.t);
    const expectRetryAfter = (reply: Reply, t: number): void => {
      // whole seconds (at least 1) until the oldest request that matters leaves the window
      const inWindow = accepted().filter((a) => a > t - windowMs).sort((a, b) => a - b);
      const wait = inWindow[inWindow.length - 5]! + windowMs - t;
      expect(reply.headers['retry-after']).toBe(String(Math.max(1, Math.ceil(wait / 1000))));
    };

    const burst = async (): Promise<string[]> => {
      const remaining: string[] = [];
      for (let i = 0; i < 5; i++) {
        const reply = await call(sim, '/spaces');
        expect(reply.status).toBe(200);
        remaining.push(String(reply.headers['x-ratelimit-remaining']));
      }
      return remaining;
    };
    const over = async (): Promise<Reply> => {
      const reply = await call(sim, `/spaces/${sim.space}/agents`);
      expect(reply.status).toBe(429);
      expect(json<ErrorBody>(reply).code).toBe('rate_limited');
      expect(reply.headers['x-ratelimit-remaining']).toBe('0');
      expectRetryAfter(reply, sim.requestLog.at(-1)!.t);
      return reply;
    };

    expect(await burst()).toEqual(['4', '3', '2', '1', '0']);
    // right after the burst the oldest request leaves the window in just under 2 s
    expect((await over()).headers['retry-after']).toBe('2');
    await sleep(1_000);
    // half-way: just under 1 s to go; these rejected requests must not count...
    for (let i = 0; i < 3; i++) expect((await over()).headers['retry-after']).toBe('1');
    await sleep(1_000);
    // ...so once the burst has left the window, the full budget is back
    expect(await burst()).toEqual(['4', '3', '2', '1', '0']);
    await over();

    // within any window the server never accepted more than the limit
    const times = accepted().sort((a, b) => a - b);
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(windowMs);
    expect(sim.requestLog.filter((r) => r.status === 429).length).toBe(5);
    expect(sim.requestLog.filter((r) => r.status === 200).length).toBe(10);
  });

  it('counts the second client’s requests against the same budget', async () => {
    const sim = await simulator({ seed: 6, conversations: 30, rateLimit: 1_000, otherClientRpm: 6_000 });
    await sleep(500);
    const others = (): number => sim.requestLog.filter((r) => r.client === 'other').length;
    const before = others();
    const reply = await call(sim, '/spaces');
    const after = others();
    // 100 per second for 0.5 s; timers on a busy machine fire late, never early
    expect(before).toBeGreaterThanOrEqual(15);
    expect(before).toBeLessThanOrEqual(80);
    const remaining = Number(reply.headers['x-ratelimit-remaining']);
    expect(remaining).toBeLessThanOrEqual(1_000 - 1 - before);
    expect(remaining).toBeGreaterThanOrEqual(1_000 - 1 - after);
    const gaps = sim.requestLog
      .filter((r) => r.client === 'other')
      .map((r) => r.t)
      .slice(1)
      .map((t, i, arr) => (i === 0 ? 0 : t - arr[i - 1]!));
    // evenly spaced: the typical gap is the 10 ms asked for (a stalled event loop may stretch a few)
    const median = [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)]!;
    expect(median).toBeLessThan(25);

    const crowded = await simulator({ seed: 6, conversations: 30, rateLimit: 10, otherClientRpm: 2_400 });
    await sleep(400);
    const throttled = await call(crowded, '/spaces');
    expect(throttled.status).toBe(429);
    expect(crowded.requestLog.filter((r) => r.client === 'other' && r.status === 200)).toHaveLength(10);
  });
});

describe('data over time', () => {
  it('is deterministic: same seed and now give the same data, another seed other data', async () => {
    const a = generateDataset({ seed: 42, conversations: 300, now: NOW });
    const b = generateDataset({ seed: 42, conversations: 300, now: NOW });
    const c = generateDataset({ seed: 43, conversations: 300, now: NOW });
    expect(b.conversations).toEqual(a.conversations);
    expect(b.agents).toEqual(a.agents);
    expect(b.tools).toEqual(a.tools);
    expect(b.space).toEqual(a.space);
    for (const i of [0, 7, 150, 299]) {
      const id = a.conversations[i]!.id;
      expect(b.detail(id)).toEqual(a.detail(id));
      expect(a.detail(id)).toEqual(a.detail(id));
    }
    const ids = new Set(a.conversations.map((x) => x.id));
    expect(c.conversations.filter((x) => ids.has(x.id))).toEqual([]);
    expect(c.agents.map((x) => x.id)).not.toEqual(a.agents.map((x) => x.id));

    const s1 = await simulator({ seed: 42, conversations: 300, unstableTies: false });
    const s2 = await simulator({ seed: 42, conversations: 300, unstableTies: false });
    expect(s1.apiKey).toBe(s2.apiKey);
    expect((await call(s1, `/spaces/${s1.space}/conversations`, { query: { per_page: 200 } })).text).toBe(
      (await call(s2, `/spaces/${s2.space}/conversations`, { query: { per_page: 200 } })).text,
    );
    // ~2% share a started_at; history spans `days` with a weekday/business-hour rhythm
    const big = generateDataset({ seed: 1, conversations: 5_000, now: NOW });
    const counts = new Map<string, number>();
    for (const x of big.conversations) counts.set(x.started_at, (counts.get(x.started_at) ?? 0) + 1);
    const tied = [...counts.values()].filter((n) => n > 1).reduce((s, n) => s + n, 0);
    expect(tied / 5_000).toBeGreaterThan(0.01);
    expect(tied / 5_000).toBeLessThan(0.04);
    const oldest = ms(big.conversations.at(-1)!.started_at);
    expect(ms(NOW.toISOString()) - oldest).toBeGreaterThan(27 * 86_400_000);
    const hour = (x: ConversationSummary): number => new Date(x.started_at).getUTCHours();
    const business = big.conversations.filter((x) => hour(x) >= 8 && hour(x) < 18).length;
    const night = big.conversations.filter((x) => hour(x) < 6).length;
    expect(business).toBeGreaterThan(8 * night);
  });

  it('returns tied conversations in a different order from one request to the next', async () => {
    const sim = await simulator({ seed: 8, conversations: 100 });
    const at = new Date(ms(sim.dataset.conversations[50]!.started_at) - 1_000);
    sim.addConversations(3, { startedAt: at, open: false });
    const page = async (): Promise<string[]> =>
      json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 200 } }))
        .data.filter((c) => ms(c.started_at) === at.getTime())
        .map((c) => c.id);
    const orders = [await page(), await page(), await page()];
    expect(orders[0]).toHaveLength(3);
    expect(new Set(orders.map((o) => o.join())).size).toBe(3);
    for (const o of orders) expect([...o].sort()).toEqual([...orders[0]!].sort());
    // a tie split by a page boundary: consecutive pages can show one twice and miss the other
    const idx = sim.dataset.conversations.findIndex((c) => ms(c.started_at) === at.getTime());
    const seen = new Set<string>();
    for (let round = 0; round < 4; round++) {
      for (const p of [idx + 1, idx + 2, idx + 3]) {
        const body = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 1, page: p } }));
        seen.add(body.data[0]!.id);
      }
    }
    expect(seen.size).toBe(3);
  });

  it('receives new conversations over time, newest first and still open', async () => {
    const sim = await simulator({ seed: 9, conversations: 50, arrivalsPerMinute: 1_200 });
    const clockAtStart = sim.clock().getTime();
    await sleep(600);
    const body = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 200 } }));
    const added = body.meta.total - 50;
    expect(added).toBeGreaterThanOrEqual(6);
    expect(added).toBeLessThanOrEqual(20);
    const fresh = body.data.slice(0, added);
    for (const c of fresh) {
      expect(ms(c.started_at)).toBeGreaterThanOrEqual(Math.floor(clockAtStart / 1000) * 1000);
      expect(c.ended_at).toBeNull();
      expect(c.outcome).toBeNull();
      expect(c.message_count).toBeGreaterThanOrEqual(1);
    }
    expect(Math.abs(sim.clock().getTime() - Date.now() - (NOW.getTime() - Date.now()))).toBeLessThan(5_000);
  });

  it('finishes open conversations: ended_at, outcome and the full transcript, keeping the visible part', async () => {
    const sim = await simulator({ seed: 10, conversations: 120 });
    const open = sim.dataset.conversations.filter((c) => c.ended_at === null);
    expect(open.length).toBeGreaterThanOrEqual(3);
    const partial = new Map<string, ConversationDetail>();
    for (const c of open) {
      partial.set(c.id, json<{ data: ConversationDetail }>(await call(sim, `/spaces/${sim.space}/conversations/${c.id}`)).data);
    }
    const added = sim.addConversations(2);
    expect(added.every((c) => c.ended_at === null && c.message_count >= 1)).toBe(true);
    expect(sim.finishOpenConversations()).toBe(open.length + 2);
    expect(sim.finishOpenConversations()).toBe(0);
    const clock = sim.clock().getTime();
    for (const c of [...open, ...added]) {
      const d = json<{ data: ConversationDetail }>(await call(sim, `/spaces/${sim.space}/conversations/${c.id}`)).data;
      expect(d.outcome).toEqual(expect.any(String));
      expect(d.ended_at).toEqual(expect.any(String));
      expect(ms(d.ended_at)).toBeLessThanOrEqual(clock);
      expect(d.duration_sec).toBe((ms(d.ended_at) - ms(d.started_at)) / 1000);
      expect(d.transcript!.length).toBe(d.message_count);
      expect(typeof d.summary).toBe('string');
      const before = partial.get(c.id);
      if (before) {
        expect(d.message_count).toBeGreaterThan(before.message_count);
        expect(d.transcript!.slice(0, before.transcript!.length)).toEqual(before.transcript);
      }
    }
    const listed = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`, { query: { per_page: 10 } }));
    expect(listed.data.every((c) => c.ended_at !== null)).toBe(true);
    expect(listed.data.slice(0, 2).map((c) => c.id).sort()).toEqual(added.map((c) => c.id).sort());
  });

  it('with autoFinish, finishes an open conversation once the clock passes its natural end', async () => {
    const sim = await simulator({ seed: 16, conversations: 60, autoFinish: true });
    const [old] = sim.addConversations(1, { startedAt: new Date(sim.clock().getTime() - 2 * 3_600_000) });
    const [fresh] = sim.addConversations(1);
    expect(old!.ended_at).toBeNull();
    await sleep(1_150);
    const oldNow = sim.dataset.record(old!.id)!.summary;
    expect(oldNow.ended_at).toEqual(expect.any(String));
    expect(ms(oldNow.ended_at)).toBeLessThan(sim.clock().getTime() - 3_600_000);
    expect(sim.dataset.record(fresh!.id)!.summary.ended_at).toBeNull();
  });

  it('leaves out summary, transcript and recording_url in a confidential space', async () => {
    const sim = await simulator({ seed: 11, conversations: 40, confidential: true });
    const list = json<ListResponse<ConversationSummary>>(await call(sim, `/spaces/${sim.space}/conversations`));
    expect(list.data.length).toBeGreaterThan(0);
    for (const c of list.data) expect(Object.keys(c)).not.toContain('summary');
    const voice = list.data.find((c) => c.channel === 'voice' && c.ended_at !== null)!;
    const d = json<{ data: Record<string, unknown> }>(await call(sim, `/spaces/${sim.space}/conversations/${voice.id}`)).data;
    expect(Object.keys(d)).not.toContain('summary');
    expect(Object.keys(d)).not.toContain('transcript');
    expect(Object.keys(d)).not.toContain('recording_url');
    expect(d.tool_calls).toEqual(expect.any(Array));
    expect((d.node_path as unknown[]).length).toBeGreaterThan(0);
    expect(d.message_count).toBe(sim.dataset.detail(voice.id)!.transcript!.length);
    sim.setOptions({ confidential: false });
    const open = json<{ data: Record<string, unknown> }>(await call(sim, `/spaces/${sim.space}/conversations/${voice.id}`)).data;
    expect(Object.keys(open)).toEqual(expect.arrayContaining(['summary', 'transcript', 'recording_url']));
  });

  it('adds values the spec does not list when asked, and keeps ordering by instant', async () => {
    const ds = generateDataset({ seed: 12, conversations: 3_000, now: NOW, exoticValues: true });
    const list = ds.conversations;
    expect(list.some((c) => c.direction === 'outbound')).toBe(true);
    expect(list.some((c) => c.outcome === 'voicemail')).toBe(true);
    expect(list.some((c) => /[+-]\d{2}:\d{2}$/.test(c.started_at))).toBe(true);
    for (let i = 1; i < list.length; i++) expect(ms(list[i - 1]!.started_at)).toBeGreaterThanOrEqual(ms(list[i]!.started_at));
    const statuses = new Set(list.slice(0, 1_500).flatMap((c) => ds.detail(c.id)!.tool_calls.map((t) => t.status)));
    expect(statuses).toContain('rate_limited');
    const plain = generateDataset({ seed: 12, conversations: 3_000, now: NOW });
    expect(plain.conversations.some((c) => c.direction !== 'inbound' || c.outcome === 'voicemail')).toBe(false);
  });

  it('generates large histories fast and keeps details on demand', () => {
    const t0 = performance.now();
    const ds = generateDataset({ seed: 2, conversations: 30_000, now: NOW });
    const elapsed = performance.now() - t0;
    expect(ds.conversations).toHaveLength(30_000);
    // a bound a loaded machine cannot miss; generating every detail up front could not keep it
    expect(elapsed).toBeLessThan(30_000);
    const long = ds.conversations.filter((c) => c.message_count > 100);
    expect(long.length).toBeGreaterThan(100);
    expect(long.length).toBeLessThan(600);
    expect(ds.detail(long[0]!.id)!.transcript!.length).toBe(long[0]!.message_count);
  });
});

describe('faults, latency and shutdown', () => {
  it('injects 5xx, dropped connections and truncated bodies at roughly the set rates', async () => {
    const sim = await simulator({ seed: 3, conversations: 30, faults: { error5xx: 0.2, drop: 0.15, truncate: 0.15 } });
    const via = new Agent({ connections: 4 });
    const seen = { ok: 0, error5xx: 0, drop: 0, truncate: 0 };
    const statuses = new Set<number>();
    const n = 400;
    let i = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (i++ < n) {
          let res;
          try {
            res = await request(`${sim.baseUrl}/spaces/${sim.space}/agents`, { headers: { authorization: `Bearer ${sim.apiKey}` }, dispatcher: via });
          } catch {
            seen.drop++;
            continue;
          }
          let text: string;
          try {
            text = await res.body.text();
          } catch {
            seen.truncate++; // the connection closed before Content-Length bytes arrived
            continue;
          }
          if (res.statusCode >= 500) {
            seen.error5xx++;
            statuses.add(res.statusCode);
            expect(res.headers['x-ratelimit-limit']).toBeDefined();
          } else {
            expect(JSON.parse(text)).toHaveProperty('data');
            seen.ok++;
          }
        }
      }),
    );
    await via.close();
    const logged = (f: string): number => sim.requestLog.filter((r) => r.fault === f).length;
    expect(seen.drop).toBe(logged('drop'));
    expect(seen.truncate).toBe(logged('truncate'));
    expect(seen.error5xx).toBe(logged('error5xx'));
    const total = sim.requestLog.length;
    expect(total).toBe(n);
    expect(seen.error5xx / total).toBeGreaterThan(0.12);
    expect(seen.error5xx / total).toBeLessThan(0.28);
    expect(seen.drop / total).toBeGreaterThan(0.07);
    expect(seen.drop / total).toBeLessThan(0.25);
    expect(seen.truncate / total).toBeGreaterThan(0.07);
    expect(seen.truncate / total).toBeLessThan(0.25);
    expect([...statuses].sort()).toEqual([500, 502, 503]);
    // no faults on rejected requests
    expect(sim.requestLog.filter((r) => r.status === 401 && r.fault).length).toBe(0);
  });

  it('delays list and detail responses by the configured latency', async () => {
    // latencies long enough that an undelayed answer on a loaded machine is still far quicker
    const sim = await simulator({ seed: 14, conversations: 30, latency: { listMs: 800, detailMs: 1_200, otherMs: 0 } });
    const timed = async (path: string): Promise<number> => {
      const t0 = performance.now();
      expect((await call(sim, path)).status).toBe(200);
      return performance.now() - t0;
    };
    expect(await timed(`/spaces/${sim.space}/conversations`)).toBeGreaterThanOrEqual(795);
    expect(await timed(`/spaces/${sim.space}/conversations/${sim.dataset.conversations[0]!.id}`)).toBeGreaterThanOrEqual(1_195);
    expect(await timed(`/spaces/${sim.space}/agents`)).toBeLessThan(700);
    sim.setOptions({ latency: { detailMs: 0 } });
    expect(await timed(`/spaces/${sim.space}/conversations/${sim.dataset.conversations[0]!.id}`)).toBeLessThan(700);
  });

  it('close() stops timers, ends keep-alive connections and releases the port', async () => {
    const kinds = ['TCPServerWrap', 'TCPSocketWrap', 'Timeout'];
    const count = (): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const k of kinds) out[k] = process.getActiveResourcesInfo().filter((r) => r === k).length;
      return out;
    };
    const before = count();
    const sim = await startSimulator({
      now: NOW,
      seed: 15,
      conversations: 30,
      arrivalsPerMinute: 600,
      otherClientRpm: 600,
      autoFinish: true,
      latency: { detailMs: 2_000 },
    });
    const via = new Agent({ connections: 3, keepAliveTimeout: 30_000 });
    for (let i = 0; i < 3; i++) await call(sim, '/spaces', { via });
    const pending = call(sim, `/spaces/${sim.space}/conversations/${sim.dataset.conversations[0]!.id}`, { via }).then(
      () => 'answered',
      () => 'closed',
    );
    await sleep(50);
    const during = count();
    // the API server and the redirect target that hostile answers point at
    expect(during.TCPServerWrap).toBe(before.TCPServerWrap! + 2);
    expect(during.Timeout).toBeGreaterThan(before.Timeout!);
    await sim.close();
    expect(await pending).toBe('closed');
    const after = count();
    for (const k of kinds) expect(after[k], k).toBeLessThanOrEqual(before[k]!);
    await expect(request(`${sim.baseUrl}/spaces`, { dispatcher: via })).rejects.toThrow();
    await via.close();
    await sim.close(); // idempotent
  });
});
