// The quality reports (abandonment, response_times, talk_share, loops, handoff_precursors,
// repeat_contacts): every figure computed again in TypeScript from the simulator's own data
// (support/quality-recomputed.ts) and compared with what the runner writes through DuckDB after a
// sync over HTTP; then that each finds what the simulator planted, and nothing it did not.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportTime, runReports, type ReportFilters } from '../src/reports/index.js';
import { startSimulator, type Dataset, type Simulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { runCli } from './support/cli.js';
import {
  expectedAbandonment,
  expectedLoops,
  expectedPrecursors,
  expectedRepeatContacts,
  expectedResponseTimes,
  expectedTalkShare,
  qconv,
  type QConv,
} from './support/quality-recomputed.js';
import type { Expected } from './support/reports-recomputed.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('quality-reports');
const NOW = new Date('2026-11-06T12:00:00Z');
const QUALITY = ['abandonment', 'response_times', 'talk_share', 'loops', 'handoff_precursors', 'repeat_contacts'];
const DEFAULTS = { slowSeconds: 10, loopVisits: 2, lastTurns: 4 };

let sim: Simulator;
let dataset: Dataset;
let dbPath: string;
let convs: QConv[];
const agentIds = new Map<string, string>(); // template name → id

beforeAll(async () => {
  dbPath = join(fileDir(), 'quality.duckdb');
  sim = await startSimulator({ seed: 17, conversations: 2000, now: NOW, days: 21, rateLimit: 100_000 });
  dataset = sim.dataset;
  const result = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock() });
  expect(result.status).toBe('ok');
  const names = new Map(dataset.agents.map((a) => [a.id, a.name]));
  for (const a of dataset.agents) agentIds.set(a.name, a.id);
  convs = dataset.conversations.map((s) => qconv(s, dataset.detail(s.id)!, names));
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

type Row = Record<string, unknown>;

async function run(names: string[], filters: ReportFilters = {}): Promise<Record<string, Row[]>> {
  const out = fileDir('run');
  await runReports({ dbPath, outDir: out, names, format: 'json', filters });
  return Object.fromEntries(names.map((n) => [n, JSON.parse(readFileSync(join(out, `${n}.json`), 'utf8')) as Row[]]));
}

/** DuckDB's round(x, 4): half away from zero. */
const round4 = (x: number) => (Math.sign(x) * Math.round(Math.abs(x) * 1e4)) / 1e4;

/** Same columns (space aside, the fixture's one), same order, numbers within rounding. */
function expectRows(got: Row[], want: Expected[], label: string): void {
  expect(got.length, `${label} rows`).toBe(want.length);
  if (want.length > 0) expect(Object.keys(got[0]!).filter((k) => k !== 'space'), `${label} columns`).toEqual(Object.keys(want[0]!));
  want.forEach((w, i) => {
    const g = got[i]!;
    expect(g.space, `${label} space`).toBe(dataset.space.slug);
    for (const [key, value] of Object.entries(w)) {
      const where = `${label} row ${i} (${JSON.stringify(w).slice(0, 140)}) ${key}`;
      if (typeof value === 'number') expect(Math.abs(Number(g[key]) - round4(value)), `${where}: got ${String(g[key])}`).toBeLessThanOrEqual(1.0001e-4);
      else expect(g[key] ?? null, where).toBe(value);
    }
  });
}

const id = (name: string) => agentIds.get(name)!;
const rowsOf = (rows: Row[], agent: string) => rows.filter((r) => r.agent_id === id(agent));

describe('quality reports over the whole database', () => {
  let got: Record<string, Row[]>;
  beforeAll(async () => {
    got = await run(QUALITY);
  });

  it('abandonment: every ended conversation split by where it ended', () => {
    expectRows(got.abandonment!, expectedAbandonment(convs, 'UTC'), 'abandonment');
    const total = (col: string) => got.abandonment!.reduce((s, r) => s + Number(r[col]), 0);
    // the simulator completes at its `end` node only, and its callers hang up before any
    expect(total('completed_at_end')).toBe(convs.filter((c) => c.outcome === 'completed').length);
    expect(total('completed_elsewhere') + total('hung_up_at_end')).toBe(0);
    expect(total('abandoned')).toBe(convs.filter((c) => c.outcome === 'hung_up').length);
  });

  it('response_times: finds the slow knowledge node, and no slow answer elsewhere but after a tool call', () => {
    const rows = got.response_times!;
    expectRows(rows, expectedResponseTimes(convs, DEFAULTS.slowSeconds), 'response_times');
    const faq = rows.filter((r) => r.node_key === 'faq');
    expect(faq.length).toBeGreaterThan(5);
    for (const r of faq) {
      expect(r.slow_share, JSON.stringify(r)).toBe(1);
      const peers = rows.filter((p) => p.level === 'node' && p.agent_id === r.agent_id && p.channel === r.channel);
      expect(Math.max(...peers.map((p) => Number(p.p50_sec)))).toBe(r.p50_sec);
    }
    const toolNodes = new Set(dataset.agents.flatMap((a) => Object.entries(a.workflow?.nodes ?? {}).filter(([, n]) => 'tool_ids' in (n as object)).map(([k]) => k)));
    for (const r of rows.filter((p) => p.level === 'node' && p.node_key !== 'faq' && Number(p.slow_answers) > 0)) {
      expect(toolNodes.has(r.node_key as string), `slow answers at ${String(r.node_key)}`).toBe(true);
    }
  });

  it('talk_share: words, runs and pace per agent and channel', () => {
    expectRows(got.talk_share!, expectedTalkShare(convs), 'talk_share');
    for (const r of got.talk_share!) expect(Number(r.agent_word_share)).toBeGreaterThan(0.3);
  });

  it('loops: Website Chat circles, Order Support repeats itself; the others neither', () => {
    const rows = got.loops!;
    expectRows(rows, expectedLoops(convs, DEFAULTS.loopVisits), 'loops');
    const revisits = rows.filter((r) => r.kind === 'revisit');
    expect(new Set(revisits.map((r) => r.agent_id))).toEqual(new Set([id('Website Chat')]));
    const circle = revisits.find((r) => r.node_key === 'route_intent')!;
    expect(Number(circle.share)).toBeGreaterThan(0.15);
    expect(Number(circle.hang_up_rate)).toBeGreaterThan(Number(circle.hang_up_rate_rest));
    const repeats = rowsOf(rows, 'Order Support').filter((r) => r.kind === 'repeat' && r.node_key === 'route_intent');
    expect(Number(repeats[0]!.share)).toBeGreaterThan(0.2);
    // elsewhere the agent repeats itself only when its lines run out: a 60–160-exchange visit
    for (const r of rows.filter((x) => x.kind === 'repeat' && x.agent_id !== id('Order Support') && x.agent_id !== id('Website Chat'))) {
      expect(Number(r.share), JSON.stringify(r)).toBeLessThan(0.03);
    }
  });

  it('handoff_precursors: a failed tool call before Website Chat’s transfers, not the others’', () => {
    const rows = got.handoff_precursors!;
    expectRows(rows, expectedPrecursors(convs, DEFAULTS), 'handoff_precursors');
    const failed = rows.filter((r) => r.outcome === 'transferred' && r.event === 'failed_tool');
    const planted = failed.find((r) => r.agent_id === id('Website Chat'))!;
    expect(Number(planted.share)).toBeGreaterThan(0.5);
    expect(Number(planted.lift)).toBeGreaterThan(5);
    for (const r of failed.filter((x) => x !== planted)) expect(Number(r.share), JSON.stringify(r)).toBeLessThan(0.25);
  });

  it('repeat_contacts: widget sessions that come back within 24 hours', () => {
    const rows = got.repeat_contacts!;
    expectRows(rows, expectedRepeatContacts(convs, convs), 'repeat_contacts');
    expect(rows.reduce((s, r) => s + Number(r.came_back), 0)).toBeGreaterThan(20);
    // voice-only agents have no widget sessions
    expect(rowsOf(rows, 'After-hours Line')).toEqual([]);
  });
});

describe('quality reports with filters and parameters', () => {
  it('--from/--to/--tz/--agent select the same conversations as the other reports', async () => {
    const agents = [id('Website Chat'), id('Order Support')];
    const tz = 'Europe/Berlin';
    const filters: ReportFilters = { tz, agents, from: parseReportTime('--since', '2026-10-25', NOW), to: parseReportTime('--until', '2026-11-02', NOW) };
    const got = await run(QUALITY, filters);
    // 2026-10-25 00:00 in Berlin is 22:00Z the day before (summer time); 2026-11-02 is 23:00Z
    const from = new Date('2026-10-24T22:00:00Z').getTime();
    const to = new Date('2026-11-01T23:00:00Z').getTime();
    const list = convs.filter((c) => agents.includes(c.agentId) && c.startedAt.getTime() >= from && c.startedAt.getTime() < to);
    expect(list.length).toBeGreaterThan(100);
    expectRows(got.abandonment!, expectedAbandonment(list, tz), 'abandonment filtered');
    expectRows(got.response_times!, expectedResponseTimes(list, DEFAULTS.slowSeconds), 'response_times filtered');
    expectRows(got.talk_share!, expectedTalkShare(list), 'talk_share filtered');
    expectRows(got.loops!, expectedLoops(list, DEFAULTS.loopVisits), 'loops filtered');
    expectRows(got.handoff_precursors!, expectedPrecursors(list, DEFAULTS), 'handoff_precursors filtered');
    expectRows(got.repeat_contacts!, expectedRepeatContacts(list, convs), 'repeat_contacts filtered');
  });

  it('--channel voice leaves repeat_contacts empty and the others voice only', async () => {
    const got = await run(QUALITY, { channel: 'voice' });
    const voice = convs.filter((c) => c.channel === 'voice');
    expect(got.repeat_contacts).toEqual([]);
    expectRows(got.talk_share!, expectedTalkShare(voice), 'talk_share voice');
    expectRows(got.loops!, expectedLoops(voice, DEFAULTS.loopVisits), 'loops voice');
  });

  it('--slow-seconds, --loop-visits and --last-turns change what counts', async () => {
    const p = { slowSeconds: 5, loopVisits: 1, lastTurns: 2 };
    const got = await run(['response_times', 'loops', 'handoff_precursors'], p);
    expectRows(got.response_times!, expectedResponseTimes(convs, p.slowSeconds), 'response_times --slow-seconds 5');
    expectRows(got.loops!, expectedLoops(convs, p.loopVisits), 'loops --loop-visits 1');
    expectRows(got.handoff_precursors!, expectedPrecursors(convs, p), 'handoff_precursors --last-turns 2');
  });

  it('the CLI takes the parameters as flags and refuses a bad value (exit 2)', async () => {
    const out = fileDir('cli');
    const ok = await runCli(['report', 'response_times', '--db', dbPath, '--out', out, '--format', 'json', '--slow-seconds', '5']);
    expect(ok.code, ok.stderr).toBe(0);
    const rows = JSON.parse(readFileSync(join(out, 'response_times.json'), 'utf8')) as Row[];
    expectRows(rows, expectedResponseTimes(convs, 5), 'response_times via CLI');
    const bad = await runCli(['report', 'loops', '--db', dbPath, '--out', out, '--loop-visits', 'many']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^convoduck: --loop-visits "many" must be a whole number above 0/);
  });
});
