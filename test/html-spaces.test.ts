// `report --html` over a database of two spaces whose agents, tools and workflow nodes share their
// names (prod and staging, as two simulated spaces of one company have), synced over real HTTP: every chart series and table row is one space's and says which, no two share a
// label, the per-agent charts show as many panels as the caption says, and each space's figures
// are those of the CSV reports run with --space for that space.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import { generateDataset, startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { n, parsePage, readCsv, unescape, type Page } from './support/html-page.js';
import { agentOf, csvIn, csvSpaces, expectPageMatchesCsv, type Csv } from './support/page-vs-csv.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('html-spaces');

const NOW = new Date('2026-11-23T12:00:00Z');
const SPACES = [
  { slug: 'acme-prod', seed: 141, conversations: 160 },
  { slug: 'acme-staging', seed: 142, conversations: 90 },
] as const;
const PERIOD = ['--since', '2026-11-09', '--until', '2026-11-23'];
const BEFORE = ['--since', '2026-10-26', '--until', '2026-11-09'];
/** The charts with one panel or bar per agent; the tool chart has one bar per tool. */
const AGENT_CHARTS = ['agent_trend', 'endings', 'abandonment'];

let sims: Simulator[] = [];
let page: Page;
let html: string;
let csv: Csv;
let bySpace: Map<string, Csv>;
let previous: Record<string, string>;

async function cli(args: string[]): Promise<void> {
  const res = await runCli(args);
  expect(res.code, res.stderr).toBe(0);
}

beforeAll(async () => {
  sims = await Promise.all(
    SPACES.map((s) =>
      startSimulator({ rateLimit: 100_000, dataset: generateDataset({ seed: s.seed, conversations: s.conversations, now: NOW, spaceSlug: s.slug }) }),
    ),
  );
  const dir = fileDir();
  const db = join(dir, 'spaces.duckdb');
  const summary = await syncSpaces({
    dbPath: db,
    spaces: sims.map((sim, i) => ({ label: `space ${i}`, baseUrl: sim.baseUrl, apiKey: sim.apiKey })),
    now: () => sims[0]!.clock(),
  });
  expect(summary.spaces.map((s) => s.status)).toEqual(['ok', 'ok']);

  await cli(['report', '--html', '--db', db, '--out', join(dir, 'page'), ...PERIOD]);
  await cli(['report', '--db', db, '--out', join(dir, 'all'), ...PERIOD]);
  await cli(['report', 'summary', '--db', db, '--out', join(dir, 'before'), ...BEFORE]);
  for (const s of SPACES) await cli(['report', '--db', db, '--out', join(dir, s.slug), '--space', s.slug, ...PERIOD]);
  html = readFileSync(join(dir, 'page', 'report.html'), 'utf8');
  page = parsePage(html);
  csv = csvIn(join(dir, 'all'));
  bySpace = new Map(SPACES.map((s) => [s.slug, csvIn(join(dir, s.slug))]));
  previous = readCsv(join(dir, 'before', 'summary.csv'))[0]!;
}, 300_000);

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

/** The one space a chart label names (`Front Desk (acme-prod) · chat`), failing when it names none or two. */
function spaceIn(label: string): string {
  const named = SPACES.filter((s) => label.includes(`(${s.slug})`)).map((s) => s.slug);
  expect(named, label).toHaveLength(1);
  return named[0]!;
}

/** The agent of a chart label: its space and the name before the space. */
function agentIn(label: string): { space: string; name: string } {
  const space = spaceIn(label);
  return { space, name: label.slice(0, label.indexOf(` (${space})`)) };
}

describe('report --html over two spaces that share agent, tool and node names', () => {
  it('the spaces really share agent and tool names', () => {
    const [prod, staging] = sims as [Simulator, Simulator];
    const shared = prod.dataset.agents.filter((a) => staging.dataset.agents.some((b) => b.name === a.name));
    expect(shared.length).toBeGreaterThanOrEqual(5);
    const agentNames = new Set(csv('agent_leaderboard').map((r) => r.agent_name));
    expect(csv('agent_leaderboard').length - agentNames.size, 'leaderboard rows sharing a name').toBeGreaterThanOrEqual(3);
    expect(staging.dataset.tools.map((t) => `${t.slug} ${t.name}`).sort()).toEqual(prod.dataset.tools.map((t) => `${t.slug} ${t.name}`).sort());
    expect(csvSpaces(csv)).toEqual(SPACES.map((s) => s.slug));
    expect(page.html).toContain(`data-spaces="${SPACES.map((s) => s.slug).join(' ')}"`);
  });

  it('shows the CSV reports’ figures, every agent and tool labelled with its space', () => {
    expectPageMatchesCsv(page, csv, previous, 'day');
  });

  it('gives every chart series one label of one space, and as many agent panels as the caption says', () => {
    const agents = csv('agent_leaderboard');
    const caption = /Shows the (\d+) agents with most conversations, of (\d+)\./.exec(html);
    expect(caption, 'the caption of the per-agent charts').not.toBeNull();
    expect(Number(caption![2])).toBe(agents.length);
    for (const chart of AGENT_CHARTS) {
      const labels = new Set(page.charts.get(chart)!.marks.map((m) => m.agent!));
      expect(labels.size, `${chart} panels`).toBe(Number(caption![1]));
      for (const label of labels) {
        const { space, name } = agentIn(label);
        expect(agents.filter((r) => r.space === space && r.agent_name === name), label).toHaveLength(1);
      }
    }
    // answer times: one bar pair per agent and channel
    const answers = page.charts.get('response_times')!.marks;
    for (const label of new Set(answers.map((m) => m.agent!))) expect(answers.filter((m) => m.agent === label).map((m) => m.measure).sort()).toEqual(['p50', 'p90']);
    // tools: one bar per tool and status; a tool's label names one space and one tool of it
    const tools = page.charts.get('tool_failures')!.marks;
    const statuses = new Set<string>();
    for (const m of tools) {
      expect(statuses.has(`${m.tool}|${m.status}`), `${m.tool} ${m.status} drawn twice`).toBe(false);
      statuses.add(`${m.tool}|${m.status}`);
      const space = spaceIn(m.tool!);
      const name = m.tool!.slice(0, m.tool!.indexOf(` (${space})`));
      expect(bySpace.get(space)!('tool_failures').filter((r) => r.tool_name === name), m.tool).toHaveLength(1);
    }
    const toolNames = new Set(tools.map((m) => m.tool!.slice(0, m.tool!.indexOf(' ('))));
    expect([...toolNames].some((name) => SPACES.every((s) => tools.some((m) => m.tool!.startsWith(`${name} (${s.slug})`)))), 'a tool failing in both spaces').toBe(true);
  });

  it('writes every agent and tool label on the axes in full, so the space is never cut off', () => {
    for (const [chart, field] of [['tool_failures', 'tool'], ['abandonment', 'agent'], ['response_times', 'agent']] as const) {
      const svg = new RegExp(`<figure class="chart" data-chart="${chart}"[^>]*>([\\s\\S]*?)</figure>`).exec(html)![1]!;
      const drawn = [...svg.matchAll(/<g class="mark-text role-axis-label"[^>]*>([\s\S]*?)<\/g>/g)].flatMap((g) =>
        [...g[1]!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => unescape(t[1]!)),
      );
      const labels = new Set(page.charts.get(chart)!.marks.map((m) => m[field]!));
      for (const label of labels) expect(drawn, `${chart}: ${label}`).toContain(label);
    }
  });

  it('has one table row per space and agent, each with its space, and each space’s figures are its own CSV’s', () => {
    const rows = page.tables.get('agent_leaderboard')!;
    expect(new Set(rows.map((r) => `${r.space}|${r.agent_name}`)).size).toBe(rows.length);
    for (const s of SPACES) {
      const own = bySpace.get(s.slug)!;
      const mine = rows.filter((r) => r.space === s.slug);
      const expected = own('agent_leaderboard');
      expect(mine.map((r) => `${r.agent_name}|${r.conversations}|${n(r.completion_rate)}|${n(r.transfer_rate)}`).sort()).toEqual(
        expected.map((r) => `${r.agent_name}|${r.conversations}|${n(r.completion_rate)}|${n(r.transfer_rate)}`).sort(),
      );
      // the per-agent ending shares drawn for this space's agents are this space's abandonment
      for (const m of page.charts.get('abandonment')!.marks.filter((x) => spaceIn(x.agent!) === s.slug)) {
        const agent = own('agent_leaderboard').find((r) => r.agent_name === agentIn(m.agent!).name)!;
        const days = own('abandonment').filter((r) => agentOf(r) === agentOf(agent));
        const column = m.ended === 'contained' ? 'contained' : m.ended!;
        expect(n(m.conversations), `${m.agent} ${m.ended}`).toBe(days.reduce((sum, r) => sum + n(r[column])!, 0));
      }
      // the tool bars of this space are this space's tool_failures
      const bars = page.charts.get('tool_failures')!.marks.filter((m) => spaceIn(m.tool!) === s.slug);
      const failing = own('tool_failures').filter((r) => n(r.failures)! > 0);
      for (const m of bars) {
        const tool = failing.find((r) => m.tool!.startsWith(`${r.tool_name} (${s.slug})`))!;
        expect(tool.failures_by_status, m.tool).toContain(`${m.status}:${m['failed calls']}`);
      }
    }
    for (const table of ['tool_failure_log', 'handoff_precursors']) {
      for (const r of page.tables.get(table) ?? []) expect(SPACES.map((s) => s.slug), table).toContain(r.space);
    }
  });
});
