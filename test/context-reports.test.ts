// The reports that explain the numbers: connection_health, agent_changes, and the workflow nodes in
// node_funnel and drop_off. Every figure is computed again here, in TypeScript, from the
// simulator's own data and edits, and compared with the CSV files the runner writes from a
// database synced over real HTTP. Nothing here re-runs the reports' SQL.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentDetail, ConversationDetail } from '../src/api/types.js';
import { runReports, type ReportFilters } from '../src/reports/index.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { readCsv } from './support/html-page.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('context-reports');

const NOW = new Date('2026-11-06T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Cell = string | number | boolean | null;
type Row = Record<string, Cell>;

let dir: string;
let dbPath: string;
let sim: Simulator;
let details: ConversationDetail[];
/** each agent as the first sync stored it, before the edits */
let firstVersions: Map<string, AgentDetail>;
let edited: { agent: AgentDetail; at: Date }[];
let secondSync: { from: number; to: number };

beforeAll(async () => {
  dir = fileDir();
  dbPath = join(dir, 'context.duckdb');
  sim = await startSimulator({ seed: 41, conversations: 1500, now: NOW, days: 28, rateLimit: 100_000 });
  const base = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock() };
  expect((await sync(base)).status).toBe('ok');
  firstVersions = new Map(sim.dataset.agents.map((a) => [a.id, structuredClone(a)]));

  // Order Support, six days ago: a friendlier tone; the knowledge step replaced by a call-back step
  // no conversation has reached. Website Chat, two days ago: a new greeting, saved but not published.
  const orders = sim.dataset.agents.find((a) => a.name === 'Order Support')!;
  const chat = sim.dataset.agents.find((a) => a.name === 'Website Chat')!;
  const { faq: _faq, ...nodes } = orders.workflow.nodes;
  const edges = Object.fromEntries(
    Object.entries(orders.workflow.edges)
      .filter(([key]) => key !== 'faq')
      .map(([key, next]) => [key, key === 'route_intent' ? [...(next as string[]).filter((n) => n !== 'faq'), 'call_back'] : next]),
  );
  const closeness = orders.behavior.values.tone!.closeness === 'formal' ? 'personal' : 'formal';
  const ordersAt = new Date(NOW.getTime() - 6 * DAY);
  const chatAt = new Date(NOW.getTime() - 2 * DAY + HOUR / 2);
  sim.editAgent(orders.id, {
    at: ordersAt,
    behavior: { values: { tone: { closeness } } },
    workflow: { ...orders.workflow, nodes: { ...nodes, call_back: { type: 'tool', title: 'Call back later' } }, edges: { ...edges, call_back: ['end'] } },
  });
  sim.editAgent(chat.id, { at: chatAt, first_message: { text: 'Hi! Ask me about your order.', interruptible: true }, publish: false });
  edited = [
    { agent: orders, at: ordersAt },
    { agent: chat, at: chatAt },
  ];
  secondSync = { from: sim.clock().getTime(), to: 0 };
  expect((await sync(base)).status).toBe('ok');
  secondSync.to = sim.clock().getTime();
  details = sim.dataset.conversations.map((c) => sim.dataset.detail(c.id)!);
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

async function report(name: string, filters: ReportFilters = {}): Promise<Record<string, string>[]> {
  const out = fileDir(name);
  await runReports({ dbPath, outDir: out, names: [name], filters });
  return readCsv(join(out, `${name}.csv`));
}

/** DuckDB's round(x, 4): half away from zero. */
const round4 = (x: number): number => (Math.sign(x) * Math.round(Math.abs(x) * 1e4)) / 1e4;
const ratio = (num: number, den: number): number | null => (den === 0 ? null : num / den);
const count = <T>(list: T[], test: (x: T) => boolean): number => list.filter(test).length;
const cmp = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
const iso = (d: Date): string => d.toISOString().replace('.000Z', 'Z');

function expectRows(got: Record<string, string>[], want: Row[], label: string): void {
  expect(got.length, `${label} rows`).toBe(want.length);
  want.forEach((row, i) => {
    for (const [key, value] of Object.entries(row)) {
      const cell = got[i]![key];
      const where = `${label} row ${i} (${JSON.stringify(row).slice(0, 140)}) ${key}`;
      if (value === null) expect(cell, where).toBe('');
      else if (typeof value === 'number') expect(Math.abs(Number(cell) - round4(value)), `${where}: got ${cell}`).toBeLessThanOrEqual(1.0001e-4);
      else expect(cell, where).toBe(String(value));
    }
  });
}

const ended = (c: ConversationDetail): boolean => c.outcome !== null;
const rateOf = (list: ConversationDetail[], outcome: string): number | null =>
  ratio(count(list, (c) => c.outcome === outcome), count(list, ended));
const diff = (after: number | null, before: number | null): number | null => (after === null || before === null ? null : after - before);

describe('connection_health', () => {
  function expected(list: ConversationDetail[]): Row[] {
    const connectionOf = new Map(sim.dataset.tools.map((t) => [t.id, t.connection_id]));
    return sim.dataset.connections
      .map((conn) => {
        const calls = list.flatMap((c) => c.tool_calls.filter((k) => connectionOf.get(k.tool_id) === conn.id).map((k) => ({ k, c })));
        const failures = calls.filter(({ k }) => k.status !== 'ok');
        const statuses = new Map<string, number>();
        for (const { k } of failures) statuses.set(k.status, (statuses.get(k.status) ?? 0) + 1);
        const byStatus = [...statuses].sort((a, b) => b[1] - a[1] || cmp(a[0], b[0]));
        const calling = [...new Set(calls.map(({ c }) => c))];
        const affected = calling.filter((c) => failures.some((f) => f.c === c));
        const clean = calling.filter((c) => !affected.includes(c));
        return {
          space: sim.space,
          connection_id: conn.id,
          connection_name: conn.name,
          kind: conn.kind,
          base_url: conn.base_url,
          auth_status: conn.auth_status,
          tools: count(sim.dataset.tools, (t) => t.connection_id === conn.id),
          calls: calls.length,
          failures: failures.length,
          failure_rate: ratio(failures.length, calls.length),
          failures_by_status: byStatus.length === 0 ? null : byStatus.map(([s, n]) => `${s}:${n}`).join('; '),
          conversations_calling: calling.length,
          conversations_affected: affected.length,
          completion_rate_with_failure: rateOf(affected, 'completed'),
          completion_rate_without_failure: rateOf(clean, 'completed'),
          transfer_rate_with_failure: rateOf(affected, 'transferred'),
          transfer_rate_without_failure: rateOf(clean, 'transferred'),
          hang_up_rate_with_failure: rateOf(affected, 'hung_up'),
          hang_up_rate_without_failure: rateOf(clean, 'hung_up'),
        };
      })
      .sort((a, b) => b.failures - a.failures || cmp(a.connection_name, b.connection_name));
  }

  it('one row per connection: its tools, calls, failures by status, affected conversations and auth_status', async () => {
    const want = expected(details);
    expect(want.some((r) => r.auth_status === 'error' && Number(r.calls) > 0)).toBe(true);
    expect(want.every((r) => Number(r.failures) > 0)).toBe(true);
    const got = await report('connection_health');
    expect(Object.keys(got[0]!)).toEqual(Object.keys(want[0]!));
    expectRows(got, want, 'connection_health');
  });

  it('lists every connection also when the filters select no call through it', async () => {
    const chat = edited[1]!.agent.id;
    const filters = { agents: [chat], channel: 'chat' };
    const list = details.filter((c) => c.agent_id === chat && c.channel === 'chat');
    const want = expected(list);
    expect(want.some((r) => r.calls === 0)).toBe(true);
    expectRows(await report('connection_health', filters), want, 'connection_health filtered');
  });
});

describe('agent_changes', () => {
  /** Top-level fields that differ (a timestamp differs only as an instant), updated_at left out. */
  function changedFields(before: AgentDetail, after: AgentDetail): string {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => k !== 'updated_at').sort();
    const same = (a: unknown, b: unknown): boolean =>
      typeof a === 'string' && typeof b === 'string' && /^\d{4}-\d\d-\d\dT/.test(a) && /^\d{4}-\d\d-\d\dT/.test(b)
        ? Date.parse(a) === Date.parse(b)
        : JSON.stringify(a) === JSON.stringify(b);
    return keys.filter((k) => !same((before as unknown as Record<string, unknown>)[k], (after as unknown as Record<string, unknown>)[k])).join('; ');
  }

  function expected(days: number, channel: string | null): Row[] {
    return edited
      .map(({ agent, at }) => {
        const mine = details.filter((c) => c.agent_id === agent.id && (channel === null || c.channel === channel));
        const started = (c: ConversationDetail) => Date.parse(c.started_at);
        const before = mine.filter((c) => started(c) >= at.getTime() - days * DAY && started(c) < at.getTime());
        const after = mine.filter((c) => started(c) >= at.getTime() && started(c) < at.getTime() + days * DAY);
        const rates = (outcome: string) => {
          const b = rateOf(before, outcome);
          const a = rateOf(after, outcome);
          return [b, a, diff(a, b)] as const;
        };
        const [cb, ca, cc] = rates('completed');
        const [tb, ta, tc] = rates('transferred');
        const [hb, ha, hc] = rates('hung_up');
        return {
          agent_id: agent.id,
          agent_name: agent.name,
          version: 2,
          changed_at: iso(at),
          status: agent.status,
          sync_status: agent.sync_status,
          changed_fields: changedFields(firstVersions.get(agent.id)!, agent),
          conversations_before: before.length,
          conversations_after: after.length,
          completion_rate_before: cb,
          completion_rate_after: ca,
          completion_rate_change: cc,
          transfer_rate_before: tb,
          transfer_rate_after: ta,
          transfer_rate_change: tc,
          hang_up_rate_before: hb,
          hang_up_rate_after: ha,
          hang_up_rate_change: hc,
        };
      })
      .sort((a, b) => cmp(b.changed_at, a.changed_at));
  }

  it('one row per new version: when, what changed, and the rates in the 7 days before and after', async () => {
    const want = expected(7, null);
    expect(want.map((r) => r.changed_fields)).toEqual(['first_message; sync_status', 'behavior; last_synced_at; workflow']);
    expect(want.every((r) => (r.conversations_before as number) > 20 && (r.conversations_after as number) > 20)).toBe(true);
    const got = await report('agent_changes');
    expectRows(got, want, 'agent_changes');
    for (const row of got) {
      const seen = Date.parse(row.first_seen_at!);
      expect(seen).toBeGreaterThanOrEqual(secondSync.from - 1000);
      expect(seen).toBeLessThanOrEqual(secondSync.to + 1000);
    }
  });

  it('--change-days and --channel set the windows and the conversations counted; --since selects changes (CLI)', async () => {
    const out = fileDir('days');
    const result = await runCli(['report', 'agent_changes', '--db', dbPath, '--out', out, '--change-days', '3', '--channel', 'voice']);
    expect(result.code, result.stderr).toBe(0);
    expectRows(readCsv(join(out, 'agent_changes.csv')), expected(3, 'voice'), 'agent_changes --change-days 3 --channel voice');
    const recent = await report('agent_changes', { from: { instant: new Date(NOW.getTime() - 3 * DAY) } });
    expect(recent.map((r) => r.agent_id)).toEqual([edited[1]!.agent.id]);
    const bad = await runCli(['report', 'agent_changes', '--db', dbPath, '--out', out, '--change-days', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^convoduck: --change-days/);
  });
});

describe('node_funnel and drop_off with the workflow’s nodes', () => {
  const withPath = () => details.filter((c) => c.node_path.length > 0);
  const lastNode = (c: ConversationDetail): string | null => c.node_path.at(-1)?.node_key ?? null;
  const flowOf = (agentId: string) => {
    const wf = sim.dataset.agents.find((a) => a.id === agentId)!.workflow;
    return { nodes: Object.keys(wf.nodes), start: wf.start_node };
  };
  const agentsInScope = () => [...new Set(withPath().map((c) => c.agent_id))].sort();
  const name = (id: string) => sim.dataset.agents.find((a) => a.id === id)!.name;
  const flags = (agentId: string, node: string | null) => {
    const flow = flowOf(agentId);
    if (node === null || flow.nodes.length === 0) return { in_workflow: null, is_start: null };
    return { in_workflow: flow.nodes.includes(node), is_start: flow.nodes.includes(node) && node === flow.start };
  };

  it('node_funnel: every node of the current flow, unreached ones with zero counts, and the start node', async () => {
    const want: Row[] = [];
    for (const agentId of agentsInScope()) {
      const mine = withPath().filter((c) => c.agent_id === agentId);
      const nodes = new Set([...mine.flatMap((c) => c.node_path.map((p) => p.node_key)), ...flowOf(agentId).nodes]);
      const rows = [...nodes].map((node) => {
        const reached = mine.filter((c) => c.node_path.some((p) => p.node_key === node));
        const by = (outcome: string | null) => count(reached, (c) => c.outcome === outcome);
        return {
          agent_id: agentId,
          agent_name: name(agentId),
          node_key: node,
          conversations_reached: reached.length,
          reach_rate: reached.length / mine.length,
          visits: reached.reduce((s, c) => s + count(c.node_path, (p) => p.node_key === node), 0),
          ended_here: count(reached, (c) => lastNode(c) === node),
          completed: by('completed'),
          transferred: by('transferred'),
          hung_up: by('hung_up'),
          failed: by('failed'),
          in_progress: by(null),
          ...flags(agentId, node),
        };
      });
      want.push(...rows.sort((a, b) => b.conversations_reached - a.conversations_reached || cmp(a.node_key, b.node_key)));
    }
    const got = await report('node_funnel');
    expectRows(got, want, 'node_funnel');
    const orders = edited[0]!.agent.id;
    const row = (node: string) => got.find((r) => r.agent_id === orders && r.node_key === node);
    expect(row('call_back')).toMatchObject({ conversations_reached: '0', reach_rate: '0.0', in_workflow: 'true', is_start: 'false' });
    expect(row('faq')).toMatchObject({ in_workflow: 'false', is_start: 'false' });
    expect(row('greeting')).toMatchObject({ is_start: 'true' });
  });

  it('drop_off: hang-ups per last node, and every other node of the flow with none', async () => {
    const want: Row[] = [];
    for (const agentId of [...new Set(details.map((c) => c.agent_id))].sort()) {
      const mine = details.filter((c) => c.agent_id === agentId);
      const hungUp = mine.filter((c) => c.outcome === 'hung_up');
      const visited = (node: string) => count(mine, (c) => c.node_path.some((p) => p.node_key === node));
      const lastNodes = [...new Set(hungUp.map(lastNode))];
      const quiet = agentsInScope().includes(agentId) ? flowOf(agentId).nodes.filter((n) => !lastNodes.includes(n)) : [];
      const rows = [
        ...lastNodes.map((node) => {
          const n = count(hungUp, (c) => lastNode(c) === node);
          const v = node === null ? null : visited(node);
          return { node, n, share: n / hungUp.length, v, exit: v === null ? null : ratio(n, v) };
        }),
        ...quiet.map((node) => ({ node, n: 0, share: ratio(0, hungUp.length), v: visited(node), exit: ratio(0, visited(node)) })),
      ];
      rows.sort((a, b) => b.n - a.n || cmp(a.node, b.node));
      for (const r of rows) {
        want.push({
          agent_id: agentId,
          agent_name: name(agentId),
          node_key: r.node,
          hang_ups: r.n,
          share: r.share,
          conversations_visited: r.v,
          exit_rate: r.exit,
          ...flags(agentId, r.node),
        });
      }
    }
    expect(want.some((r) => r.hang_ups === 0 && r.conversations_visited === 0)).toBe(true);
    expectRows(await report('drop_off'), want, 'drop_off');
  });
});
