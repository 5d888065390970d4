// `convoduck report --html`, run as a user runs it (the built CLI): the page's tiles, plotted
// values and table cells equal the CSV reports' figures for the same filters, on a demo-like
// simulator dataset synced over HTTP and on a small dataset whose figures were worked out by hand
// (support/hand-dataset.ts); the page loads nothing from anywhere and stays small.

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { startSimulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { ALPHA, BETA, handId, writeHandDataset } from './support/hand-dataset.js';
import { n, outsideReferences, parsePage, readCsv, type Page } from './support/html-page.js';
import { csvIn, expectPageMatchesCsv, type Csv } from './support/page-vs-csv.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('html');

const NOW = new Date('2026-11-23T12:00:00Z');
const TWO_MB = 2 * 1024 * 1024;
let dir: string;

beforeAll(() => {
  dir = fileDir();
});

interface Written {
  page: Page;
  bytes: number;
  csv: Csv;
  previous: Record<string, string> | null;
  stderr: string;
}

/** The page, the CSV reports for the same filters, and `summary` for the period before. */
async function write(db: string, label: string, filters: string[], before: string[] | null): Promise<Written> {
  const out = join(dir, label);
  const html = await runCli(['report', '--html', '--db', db, '--out', join(out, 'page'), ...filters]);
  expect(html.code, html.stderr).toBe(0);
  const csv = await runCli(['report', '--db', db, '--out', join(out, 'csv'), ...filters]);
  expect(csv.code, csv.stderr).toBe(0);
  let previous = null;
  if (before) {
    const prev = await runCli(['report', 'summary', '--db', db, '--out', join(out, 'prev'), ...before]);
    expect(prev.code, prev.stderr).toBe(0);
    previous = readCsv(join(out, 'prev', 'summary.csv'))[0]!;
  }
  const path = join(out, 'page', 'report.html');
  return { page: parsePage(readFileSync(path, 'utf8')), bytes: statSync(path).size, csv: csvIn(join(out, 'csv')), previous, stderr: html.stderr };
}

function chartSvg(html: string, chart: string): string {
  return new RegExp(`<figure class="chart" data-chart="${chart}"[^>]*>([\\s\\S]*?)</figure>`).exec(html)?.[1] ?? '';
}

/** The labels of each axis a chart drew, axis by axis, in drawing order. */
function axisLabels(html: string, chart: string): string[][] {
  return [...chartSvg(html, chart).matchAll(/<g class="mark-text role-axis-label"[^>]*>([\s\S]*?)<\/g>/g)].map((g) =>
    [...g[1]!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]!),
  );
}

function legendLabels(html: string, chart: string): string[] {
  return [...chartSvg(html, chart).matchAll(/<g class="mark-text role-legend-label"[^>]*>([\s\S]*?)<\/g>/g)].flatMap((g) =>
    [...g[1]!.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]!),
  );
}

function expectSelfContained(w: Written): void {
  expect(outsideReferences(w.page.html)).toEqual([]);
  expect(w.page.html).not.toMatch(/<script|<link|<iframe|<img/i);
  expect(w.bytes).toBeLessThan(TWO_MB);
}

describe('on a demo-like dataset (3,000 conversations over 28 days, synced from the simulator)', () => {
  let db: string;
  beforeAll(async () => {
    db = join(dir, 'demo.duckdb');
    const sim = await startSimulator({ seed: 7, conversations: 3000, now: NOW, days: 28, rateLimit: 100_000 });
    try {
      const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath: db, now: () => sim.clock() });
      expect(summary.status).toBe('ok');
    } finally {
      await sim.close();
    }
  }, 300_000);

  it('two weeks in Europe/Berlin: every tile, plotted value and table cell is the CSV figure; nothing loaded; under 2 MB', async () => {
    const tz = ['--tz', 'Europe/Berlin'];
    const w = await write(db, 'demo-2w', ['--since', '2026-11-09', '--until', '2026-11-23', ...tz], ['--since', '2026-10-26', '--until', '2026-11-09', ...tz]);
    expect(w.stderr).toMatch(/^report\.html: \d+ conversations → .*report\.html\n$/);
    expect(n(w.csv('summary')[0]!.conversations)).toBeGreaterThan(1000);
    expect(n(w.previous!.conversations)).toBeGreaterThan(1000);
    expectPageMatchesCsv(w.page, w.csv, w.previous, 'day');
    for (const chart of ['volume', 'agent_trend', 'endings', 'tool_failures', 'durations', 'weekday_hour', 'abandonment', 'response_times']) {
      expect(w.page.charts.get(chart)?.marks.length, chart).toBeGreaterThan(0);
    }
    expect(w.page.tables.get('tool_failure_log')).toHaveLength(20);
    // whole days in Berlin: no partial day
    for (const chart of ['volume', 'agent_trend']) expect(w.page.charts.get(chart)!.marks.filter((m) => m.partial).length, chart).toBe(0);
    expect(w.page.html).not.toContain('the period holds only part of');
    // the Why section: the precursor the simulator plants (a failed lookup before Website Chat's
    // transfers) ranks first, with the conversation behind it
    const precursors = w.page.tables.get('handoff_precursors')!;
    expect(precursors[0]).toMatchObject({ agent_name: 'Website Chat', outcome: 'transferred', event: 'failed_tool' });
    expect(precursors[0]!.latest_conversation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(w.page.html).toContain('(Europe/Berlin)');
    expectSelfContained(w);
  }, 300_000);

  it('14 days from noon to noon: the cut first and last days are marked partial, drawn pale, and named under the chart', async () => {
    const w = await write(db, 'demo-noon', ['--since', '2026-11-09T12:00:00Z', '--until', '2026-11-23T12:00:00Z'], null);
    const partialDays = (chart: string, key: string) =>
      [...new Set(w.page.charts.get(chart)!.marks.filter((m) => m.partial === 'yes').map((m) => m[key]))].sort();
    expect(partialDays('volume', 'day')).toEqual(['2026-11-09', '2026-11-23']);
    expect(partialDays('agent_trend', 'bucket')).toEqual(['2026-11-09', '2026-11-23']);
    expect(chartSvg(w.page.html, 'volume')).toMatch(/opacity="0\.4"/);
    expect(w.page.html).toContain('9 Nov and 23 Nov are partial days');
    // every trend point carries its volume, the conversations its rate is over
    for (const m of w.page.charts.get('agent_trend')!.marks) expect(Number(m.ended)).toBeGreaterThan(0);
    // the tiles: a thousand-odd conversations each side, compared with the 14 days before
    expect(w.page.tiles.get('conversations')!.significant).toMatch(/^(true|false)$/);
  }, 300_000);

  it('the whole history: the same figures, and the tiles say there is no earlier period to compare', async () => {
    const w = await write(db, 'demo-all', [], null);
    expectPageMatchesCsv(w.page, w.csv, null, 'day');
    for (const tile of w.page.tiles.values()) expect(tile.change).toMatch(/no earlier period to compare/);
    expectSelfContained(w);
  }, 300_000);
});

describe('convoduck demo', () => {
  it('also writes report.html (the last 14 days) and prints its path', async () => {
    const cwd = fileDir('demo-cwd');
    const demo = await runCli(['demo', '--conversations', '400', '--dir', 'db', '--out', 'out'], {}, cwd);
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stderr).toMatch(/^report\.html: last 14 days, compared with the 14 before → out\/report\.html$/m);
    // one row is "1 row"
    expect(demo.stderr).toMatch(/^summary: 1 row → out\/summary\.csv$/m);
    expect(demo.stderr).not.toMatch(/\(1 rows\)/);
    expect(demo.stdout).toMatch(/^Open out\/report\.html in a browser/m);
    const page = parsePage(readFileSync(join(cwd, 'out', 'report.html'), 'utf8'));
    expect(page.empty).toBe(false);
    expect(page.tiles.get('conversations')?.change).toMatch(/vs the period before/);
  }, 300_000);
});

describe('on a hand-checked dataset (support/hand-dataset.ts)', () => {
  let db: string;
  const week = ['--since', '2026-11-09', '--until', '2026-11-16'];
  const weekBefore = ['--since', '2026-11-02', '--until', '2026-11-09'];
  beforeAll(async () => {
    db = join(dir, 'hand.duckdb');
    await writeHandDataset(db);
  });

  it('summary and duration_histogram give the figures worked out by hand', async () => {
    const w = await write(db, 'hand-csv', week, weekBefore);
    const s = w.csv('summary')[0]!;
    expect(s).toMatchObject({ conversations: '8', ended: '7', completed: '3', transferred: '2', hung_up: '2', failed: '0', in_progress: '1' });
    expect([s.completion_rate, s.transfer_rate, s.hang_up_rate, s.tool_failure_rate].map(n)).toEqual([0.4286, 0.2857, 0.2857, 0.4286]);
    expect([n(s.median_duration_sec), n(s.tool_calls), n(s.tool_failures)]).toEqual([70, 7, 3]);
    expect(s).toMatchObject({ first_started_at: '2026-11-09T09:00:00Z', last_started_at: '2026-11-15T20:00:00Z' });
    expect(s).toMatchObject({ space: 'hand-space', last_sync_ended_at: '2026-11-16T06:00:00Z', last_sync_status: 'ok' });
    const p = w.previous!;
    expect(p).toMatchObject({ conversations: '4', ended: '4', completed: '2', transferred: '1', hung_up: '1', in_progress: '0' });
    expect([p.completion_rate, p.transfer_rate, p.hang_up_rate, p.median_duration_sec, p.tool_failure_rate].map(n)).toEqual([0.5, 0.25, 0.25, 70, 0.5]);
    const bands = w.csv('duration_histogram').map((r) => `${r.channel} ${r.band} ${r.conversations} ${n(r.share)}`);
    expect(bands).toEqual([
      'chat under 15s 0 0', 'chat 15–30s 1 0.3333', 'chat 30s–1m 0 0', 'chat 1–2m 0 0', 'chat 2–5m 1 0.3333', 'chat 5–10m 0 0', 'chat 10m or more 1 0.3333',
      'voice under 15s 1 0.25', 'voice 15–30s 0 0', 'voice 30s–1m 1 0.25', 'voice 1–2m 2 0.5', 'voice 2–5m 0 0', 'voice 5–10m 0 0', 'voice 10m or more 0 0',
    ]);
  });

  it('every time axis shows every day of the period, also the days without conversations (13 and 14 Nov)', async () => {
    const w = await write(db, 'hand-axis', week, weekBefore);
    const days = ['9 Nov', '10 Nov', '11 Nov', '12 Nov', '13 Nov', '14 Nov', '15 Nov'];
    // the planted gap: no conversation started on the 13th or the 14th
    const planted = w.csv('outcomes').map((r) => r.day);
    expect(planted).not.toContain('2026-11-13');
    expect(planted).not.toContain('2026-11-14');
    const timeCharts = ['volume', 'agent_trend'];
    for (const chart of timeCharts) {
      const axes = axisLabels(w.page.html, chart);
      // one x axis per panel (agent_trend: one per agent), each with every day in order
      const timeAxes = axes.filter((labels) => labels.some((l) => / Nov$/.test(l)));
      expect(timeAxes.length, chart).toBeGreaterThan(0);
      for (const labels of timeAxes) expect(labels, chart).toEqual(days);
    }
    // the charts with a time axis are exactly these
    const withDates = [...w.page.charts.keys()].filter((c) => axisLabels(w.page.html, c).some((ls) => ls.some((l) => / Nov$/.test(l))));
    expect(withDates.sort()).toEqual(timeCharts.sort());
    // the volume legend lists the outcomes drawn, not the ones without conversations
    expect(legendLabels(w.page.html, 'volume')).toEqual(['completed', 'transferred', 'hung up', 'in progress']);
  });

  it('the page shows them: tiles and changes for people, every chart’s values, the tables', async () => {
    const w = await write(db, 'hand-week', week, weekBefore);
    expectPageMatchesCsv(w.page, w.csv, w.previous, 'day');
    const tiles = Object.fromEntries([...w.page.tiles].map(([k, t]) => [k, `${t.figure} | ${t.change}`]));
    expect(tiles).toEqual({
      // 8 against 4 conversations: every change is within the noise of such samples, none coloured
      conversations: '8 | ▲ +4 (+100.0%) vs the period before (4) (within noise)',
      completion_rate: '42.9% | ▼ −7.1 pp vs the period before (50.0%) (within noise)',
      transfer_rate: '28.6% | ▲ +3.6 pp vs the period before (25.0%) (within noise)',
      hang_up_rate: '28.6% | ▲ +3.6 pp vs the period before (25.0%) (within noise)',
      median_duration_sec: '1m 10s | ±0s vs the period before (1m 10s)',
      tool_failure_rate: '42.9% | ▼ −7.1 pp vs the period before (50.0%) (within noise)',
    });
    for (const tile of w.page.tiles.values()) expect(tile.judgement).toBe('neutral');
    expect(w.page.incomplete).toBe(1); // c8, fetched while still running
    const marks = (chart: string, ...keys: string[]) => w.page.charts.get(chart)!.marks.map((m) => keys.map((k) => m[k]).join(' '));
    expect(marks('volume', 'day', 'outcome', 'conversations')).toEqual([
      '2026-11-09 completed 2', '2026-11-09 transferred 1', '2026-11-10 hung up 1', '2026-11-11 completed 1',
      '2026-11-12 transferred 1', '2026-11-12 hung up 1', '2026-11-15 in progress 1',
    ]);
    // each trend point is sized by (and carries) the ended conversations its rate is over
    expect(marks('agent_trend', 'agent', 'bucket', 'ended').filter((_, i) => i % 2 === 0)).toEqual([
      'Alpha Desk 2026-11-09 2', 'Alpha Desk 2026-11-10 1', 'Alpha Desk 2026-11-11 1', 'Beta Chat 2026-11-09 1', 'Beta Chat 2026-11-12 2',
    ]);
    expect(marks('agent_trend', 'agent', 'bucket', 'measure', 'rate').sort()).toEqual([
      'Alpha Desk 2026-11-09 contained 50%', 'Alpha Desk 2026-11-09 transferred 50%', 'Alpha Desk 2026-11-10 contained 0%',
      'Alpha Desk 2026-11-10 transferred 0%', 'Alpha Desk 2026-11-11 contained 100%', 'Alpha Desk 2026-11-11 transferred 0%',
      'Beta Chat 2026-11-09 contained 100%', 'Beta Chat 2026-11-09 transferred 0%', 'Beta Chat 2026-11-12 contained 0%',
      'Beta Chat 2026-11-12 transferred 50%',
    ]);
    expect(marks('endings', 'agent', 'node', 'ended by', 'conversations').sort()).toEqual([
      'Alpha Desk greeting hung up 1', 'Alpha Desk transfer_to_human transferred 1', 'Beta Chat identify hung up 1', 'Beta Chat transfer_to_human transferred 1',
    ]);
    expect(marks('tool_failures', 'tool', 'status', 'failed calls').sort()).toEqual([
      'Find customer · 33.3% timeout 1', 'Look up order · 50.0% error 1', 'Look up order · 50.0% timeout 1',
    ]);
    expect(marks('weekday_hour', 'day', 'hour', 'conversations').filter((m) => !m.endsWith(' 0')).sort()).toEqual([
      'Monday 10 1', 'Monday 11 1', 'Monday 9 1', 'Sunday 20 1', 'Thursday 15 1', 'Thursday 16 1', 'Tuesday 9 1', 'Wednesday 14 1',
    ]);
    const board = w.page.tables.get('agent_leaderboard')!;
    expect(board.map((r) => `${r.agent_name} ${r.conversations} ${r.completion_rate}`)).toEqual(['Alpha Desk 4 0.5', 'Beta Chat 4 0.3333']);
    expect(w.page.html.match(/<tr class="small">/g)).toHaveLength(2); // both under --min-sample 20
    const failures = w.page.tables.get('tool_failure_log')!;
    expect(failures.map((r) => `${r.conversation_id} ${r.status}`)).toEqual([`${handId('c7')} timeout`, `${handId('c4')} error`, `${handId('c2')} timeout`]);
    expectSelfContained(w);
  });

  it('a period longer than 62 days is charted per week (containment_trend as it is)', async () => {
    const w = await write(db, 'hand-long', ['--since', '2026-08-03', '--until', '2026-11-16'], ['--since', '2026-04-20', '--until', '2026-08-03']);
    expectPageMatchesCsv(w.page, w.csv, w.previous, 'week');
    const volume = w.page.charts.get('volume')!.marks.map((m) => `${m['week (from Monday)']} ${m.outcome} ${m.conversations}`);
    expect(volume).toEqual([
      '2026-11-02 completed 2', '2026-11-02 transferred 1', '2026-11-02 hung up 1',
      '2026-11-09 completed 3', '2026-11-09 transferred 2', '2026-11-09 hung up 2', '2026-11-09 in progress 1',
    ]);
    const trend = w.page.charts.get('agent_trend')!.marks.map((m) => `${m.agent} ${m.bucket} ${m.measure} ${m.rate}`);
    expect(trend.sort()).toEqual([
      'Alpha Desk 2026-11-02 contained 50%', 'Alpha Desk 2026-11-02 transferred 0%', 'Alpha Desk 2026-11-09 contained 50%',
      'Alpha Desk 2026-11-09 transferred 25%', 'Beta Chat 2026-11-02 contained 50%', 'Beta Chat 2026-11-02 transferred 50%',
      'Beta Chat 2026-11-09 contained 33.33%', 'Beta Chat 2026-11-09 transferred 33.33%',
    ]);
    for (const tile of w.page.tiles.values()) expect(tile.change).toBe('no conversations in the period before');
  });

  it('filters that match no conversation write a page that says so, with no chart', async () => {
    for (const [label, filters] of [
      ['hand-none-period', ['--since', '2026-12-01', '--until', '2026-12-08']],
      ['hand-none-agent', [...week, '--agent', BETA, '--channel', 'voice']],
    ] as const) {
      const w = await write(db, label, [...filters], null);
      expect(w.stderr).toMatch(/report\.html: no conversations in this period → /);
      expect(w.page.empty).toBe(true);
      expect(w.page.html).toMatch(/No conversations in this period/);
      expect(w.page.html).not.toContain('<svg');
      expectPageMatchesCsv(w.page, w.csv, null, 'day');
    }
    const alpha = await write(db, 'hand-alpha', [...week, '--agent', ALPHA], [...weekBefore, '--agent', ALPHA]);
    expectPageMatchesCsv(alpha.page, alpha.csv, alpha.previous, 'day');
  });

  it('an --out that cannot be written is one line and exit 2; report names beside --html are refused', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const bad = await runCli(['report', '--html', '--db', db, '--out', join(file, 'sub')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^convoduck: cannot write into the output folder .*\(ENOTDIR\) — pass --out with a folder you can write\n$/);
    const named = await runCli(['report', 'outcomes', '--html', '--db', db, '--out', join(dir, 'named')]);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^convoduck: --html writes one page .*\n$/);
  });
});
