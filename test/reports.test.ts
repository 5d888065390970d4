// Reports: every figure is computed again in TypeScript from the simulator's own data
// (dataset.conversations + dataset.detail(id), through support/reports-recomputed.ts), and compared
// with the CSV files the runner and the CLI write through DuckDB. Nothing here re-runs the reports' SQL.

import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync, readdirSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../src/shared/errors.js';
import { loadReports, parseReportTime, reportBody, runReports, type ReportFilters, type RunReportsOptions } from '../src/reports/index.js';
import { startSimulator, type Dataset, type Simulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { finishRun, startRun, type RunCounters, type SyncErrorRecord } from '../src/store/sync-runs.js';
import { fetchedDetail, saveDetails, type FetchedDetail } from '../src/store/writes.js';
import { runCli } from './support/cli.js';
import {
  cmp,
  conversationModel,
  count,
  ended,
  expectedConversationList,
  expectedHourly,
  expectedLastNodeReport,
  expectedOutcomes,
  expectedToolFailures as expectedToolFailuresOf,
  groupBy,
  isoZ,
  local,
  mean,
  neutralise,
  quantile,
  ratio,
  select as selectFrom,
  type Conv,
  type Expected,
  type Filter,
} from './support/reports-recomputed.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('reports');

// ------------------------------------------------------------------------------------------
// fixture: the simulator's data, synced over HTTP into a DuckDB file

const NOW = new Date('2026-11-06T12:00:00Z');
const ALL_REPORTS = [
  'abandonment',
  'agent_changes',
  'agent_leaderboard',
  'api_drift',
  'connection_health',
  'containment_trend',
  'conversation_list',
  'coverage',
  'drop_off',
  'duration_histogram',
  'durations',
  'early_hangups',
  'handoff_precursors',
  'hourly_volume',
  'loops',
  'node_funnel',
  'outcomes',
  'repeat_contacts',
  'response_times',
  'search_matches',
  'summary',
  'talk_share',
  'tool_failure_log',
  'tool_failures',
  'transfer_nodes',
  'transfers',
];


let dir: string;
let dbPath: string;
let sim: Simulator;
let dataset: Dataset;
let convs: Conv[];
const toolNames = new Map<string, string>();

// The project's standard: a real sync over HTTP from the simulator into a real DuckDB file.
// Then the states a real crawl can leave behind and coverage must show: conversations listed
// but not fetched yet (a sync with --details none), two details whose body was unusable, one
// deleted at the source before its detail was fetched, one whose numbers came as text, and
// detail errors recorded for some of those.
beforeAll(async () => {
  dir = fileDir();
  dbPath = join(dir, 'reports.duckdb');
  sim = await startSimulator({ seed: 11, conversations: 700, now: NOW, days: 21, exoticValues: true, rateLimit: 100_000 });
  dataset = sim.dataset;
  const finished = dataset.conversations.filter((c) => c.outcome !== null);
  const deleted = finished[40]!.id;
  const coerced = finished[41]!.id;
  sim.realData.set(deleted, { deleted: true });
  sim.realData.set(coerced, { drift: ['number_string'] });
  const base = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock() };
  const first = await sync(base);
  expect(first.status).toBe('ok');

  const added = sim.addConversations(6, { open: false, startedAt: new Date(NOW.getTime() - 20 * 60_000) });
  const second = await sync({ ...base, details: { kind: 'none' } });
  expect(second.status).toBe('ok');

  const missing = new Set(added.map((c) => c.id));
  const oldest = [...dataset.conversations].reverse();
  const invalid = new Set([oldest[0]!.id, oldest[1]!.id]);
  const failing = new Set([...added.slice(0, 3).map((c) => c.id), oldest[0]!.id]);
  await recordFailures(invalid, failing);

  const agentNames = new Map(dataset.agents.map((a) => [a.id, a.name]));
  for (const t of dataset.tools) toolNames.set(t.id, t.name);
  // when the sync saw it deleted is the sync's clock: read back, the rest is recomputed
  const seen = await Database.with(dbPath, (db) => db.one<{ at: Date }>(`SELECT seen_deleted_at AS at FROM deleted_conversations`));
  expect(seen).toBeDefined();
  const states = { deleted: new Map([[deleted, seen!.at]]), coerced: new Set([coerced]) };
  convs = dataset.conversations.map((s) => conversationModel(s, (id) => dataset.detail(id), agentNames, { missing, invalid, failing, ...states }));
  // the fixture must exercise what the reports distinguish
  expect(convs.some((c) => c.outcome === null)).toBe(true);
  expect(convs.some((c) => c.outcome !== null && !['completed', 'transferred', 'hung_up', 'failed'].includes(c.outcome))).toBe(true);
  expect(convs.some((c) => c.calls.some((k) => k.status !== 'ok'))).toBe(true);
}, 300_000);

afterAll(async () => {
  await sim?.close();
});

/** What a later sync writes when the API sends an unusable body or a detail fails for good. */
async function recordFailures(invalid: Set<string>, failing: Set<string>): Promise<void> {
  const at = new Date(NOW.getTime() + 60_000);
  await Database.with(dbPath, async (db) => {
    const runId = await startRun(db, at, dataset.space.slug, null, at);
    const details: FetchedDetail[] = [...invalid].map((id) => fetchedDetail(id, at, JSON.stringify({ data: 'nope' })));
    const errors: SyncErrorRecord[] = [...failing].map((id) => ({
      stage: 'detail',
      conversationId: id,
      httpStatus: 500,
      message: 'upstream error',
      occurredAt: at,
    }));
    const counters: RunCounters = {
      requests: details.length + errors.length,
      throttled: 0,
      retries: 0,
      conversationsListed: 0,
      detailsFetched: details.length,
      detailsCoerced: 0,
      detailsSetAside: 0,
      conversationsDeleted: 0,
      errors: errors.length,
    };
    await saveDetails(db, dataset.space.slug, details, errors, runId, counters);
    await finishRun(db, runId, at, 'errors', counters, null);
  });
}


// ------------------------------------------------------------------------------------------
// helpers: CSV, numbers, time zones

/** RFC 4180: fields separated by commas, quoted with ", "" inside quotes; CRLF or LF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
    } else if (ch === '"') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += ch === '\r' ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

interface Table {
  header: string[];
  rows: Record<string, string>[];
}

function readCsv(path: string): Table {
  const rows = parseCsv(readFileSync(path, 'utf8'));
  const header = rows[0]!;
  for (const r of rows) expect(r.length, `row width in ${path}`).toBe(header.length);
  return {
    header,
    rows: rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!]))),
  };
}

/**
 * drop_off's rows of nodes where somebody hung up: the rows of the workflow's other nodes (zero
 * hang-ups) and the in_workflow and is_start columns are checked in context-reports.test.ts.
 */
function withHangUps(table: Table): Table {
  return { ...table, rows: table.rows.filter((r) => r.hang_ups !== '0') };
}
const FLOW_COLUMNS = ['in_workflow', 'is_start'];


/** DuckDB's round(x, 4): half away from zero. */
function round4(x: number): number {
  return (Math.sign(x) * Math.round(Math.abs(x) * 1e4)) / 1e4;
}


/**
 * Compares a CSV table with expected rows: same header, same order, numbers within rounding. A
 * `space` column the expected rows leave out holds the fixture's one space in every row.
 */
function expectTable(table: Table, expected: Expected[], label: string, unchecked: string[] = []): void {
  if (expected.length > 0 && table.header.includes('space') && !('space' in expected[0]!)) {
    for (const row of table.rows) expect(row.space, `${label} space`).toBe(dataset.space.slug);
    unchecked = [...unchecked, 'space'];
  }
  if (expected.length > 0) {
    expect(table.header.filter((h) => !unchecked.includes(h)), `${label} header`).toEqual(Object.keys(expected[0]!));
  }
  expect(table.rows.length, `${label} row count`).toBe(expected.length);
  expected.forEach((want, i) => {
    const got = table.rows[i]!;
    for (const [key, value] of Object.entries(want)) {
      const cell = got[key];
      const where = `${label} row ${i} (${JSON.stringify(want).slice(0, 160)}) column ${key}`;
      if (value === null) expect(cell, where).toBe('');
      else if (typeof value === 'number') {
        expect(cell, where).not.toBe('');
        expect(Math.abs(Number(cell) - round4(value)), `${where}: got ${cell}, want ${value}`).toBeLessThanOrEqual(1.0001e-4);
      } else if (typeof value === 'boolean') expect(cell, where).toBe(String(value));
      else expect(cell, where).toBe(value);
    }
  });
}



const select = (f: Filter = {}): Conv[] => selectFrom(convs, f);
const expectedToolFailures = (list: Conv[]): Expected[] => expectedToolFailuresOf(list, toolNames);

async function run(
  name: string,
  options: Partial<RunReportsOptions> & { filters?: ReportFilters } = {},
): Promise<{ out: string; results: Awaited<ReturnType<typeof runReports>> }> {
  const out = fileDir(name);
  const results = await runReports({ dbPath, outDir: out, ...options });
  return { out, results };
}


// ------------------------------------------------------------------------------------------
// tests

describe('report catalog', () => {
  it('discovers every sql/*.sql file with a title and a documented header', () => {
    const reports = loadReports();
    expect(reports.map((r) => r.name)).toEqual(ALL_REPORTS);
    for (const r of reports) {
      expect(r.title, r.name).not.toBe(r.name);
      expect(r.header, r.name).toMatch(/One row:/);
      expect(r.header, r.name).toMatch(/Columns:/);
      expect(r.header, r.name).toMatch(/Parameters:/);
    }
  });

  it('takes a report body without its trailing semicolon and comments', () => {
    expect(reportBody('SELECT 1;\n-- end\n\n')).toBe('SELECT 1');
    expect(reportBody('SELECT 1; -- end')).toBe('SELECT 1');
    expect(reportBody('SELECT 1 -- why\n')).toBe('SELECT 1 -- why');
  });
});

describe('reports over the whole database (UTC)', () => {
  let out: string;
  let results: Awaited<ReturnType<typeof runReports>>;
  const csv = (name: string) => readCsv(join(out, `${name}.csv`));

  beforeAll(async () => {
    ({ out, results } = await run('all', { filters: { earlySeconds: 40 } }));
  });

  it('writes one CSV per report and reports its row count', () => {
    expect(results.map((r) => r.name)).toEqual(ALL_REPORTS);
    expect(readdirSync(out).sort()).toEqual([...ALL_REPORTS.map((n) => `${n}.csv`), 'columns.md'].sort());
    for (const r of results) expect(csv(r.name).rows.length, r.name).toBe(r.rows);
  });

  it('outcomes', () => {
    expectTable(csv('outcomes'), expectedOutcomes(select(), 'UTC'), 'outcomes');
  });

  it('transfers', () => {
    const list = select();
    const expected = [...groupBy(list, (c) => c.agentId).entries()]
      .map(([agentId, g]) => {
        const transferred = g.filter((c) => c.outcome === 'transferred');
        const seconds = transferred.map(
          (c) => ((c.lastNodeAt ?? c.endedAt)!.getTime() - c.startedAt.getTime()) / 1000,
        );
        return {
          agent_id: agentId,
          agent_name: g[0]!.agentName,
          conversations: g.length,
          ended: count(g, ended),
          transferred: transferred.length,
          transfer_rate: ratio(transferred.length, count(g, ended)),
          median_seconds_to_transfer: quantile(seconds, 0.5),
          avg_seconds_to_transfer: mean(seconds),
        } satisfies Expected;
      })
      .sort((a, b) => cmp(a.agent_id, b.agent_id));
    expectTable(csv('transfers'), expected, 'transfers');
  });

  it('transfer_nodes', () => {
    expectTable(
      csv('transfer_nodes'),
      expectedLastNodeReport(select(), 'transferred', 'transfers', 'visit_transfer_rate'),
      'transfer_nodes',
    );
  });

  it('drop_off', () => {
    const expected = expectedLastNodeReport(select(), 'hung_up', 'hang_ups', 'exit_rate');
    expect(expected.length).toBeGreaterThan(3);
    expectTable(withHangUps(csv('drop_off')), expected, 'drop_off', FLOW_COLUMNS);
  });

  it('tool_failures', () => {
    expectTable(csv('tool_failures'), expectedToolFailures(select()), 'tool_failures');
  });

  it('tool_failure_log', () => {
    const expected = select()
      .flatMap((c) => c.calls.map((k, seq) => ({ c, k, seq })))
      .filter(({ k }) => k.status !== 'ok')
      .sort(
        (a, b) =>
          new Date(b.k.at).getTime() - new Date(a.k.at).getTime() || cmp(a.c.id, b.c.id) || a.seq - b.seq,
      )
      .map(({ c, k, seq }) => ({
        conversation_id: c.id,
        seq,
        called_at: isoZ(new Date(k.at)),
        agent_id: c.agentId,
        agent_name: c.agentName,
        slug: k.slug,
        tool_name: toolNames.get(k.tool_id) ?? null,
        node_key: k.node_key,
        status: k.status,
      }));
    const table = csv('tool_failure_log');
    expectTable(table, expected, 'tool_failure_log', ['output_redacted']);
    expect(table.header[table.header.length - 1]).toBe('output_redacted');
    // the JSON output is stored as it came (compare as data, not text)
    table.rows.forEach((row, i) => {
      const want = expected[i]!;
      const call = convs.find((x) => x.id === want.conversation_id)!.calls[want.seq]!;
      // a JSON null arrives as an empty cell (the store keeps it as SQL NULL)
      if (row.output_redacted === '') expect(call.output_redacted ?? null).toBeNull();
      else expect(JSON.parse(row.output_redacted!)).toEqual(call.output_redacted);
    });
  });

  it('durations', () => {
    const list = select().filter(ended);
    const expected = [...groupBy(list, (c) => JSON.stringify([c.agentId, c.channel])).entries()]
      .map(([key, g]) => {
        const [agentId, channel] = JSON.parse(key) as [string, string];
        const d = g.map((c) => c.duration!);
        const m = g.map((c) => c.messages);
        return {
          agent_id: agentId,
          agent_name: g[0]!.agentName,
          channel,
          conversations: g.length,
          mean_duration_sec: mean(d),
          p50_duration_sec: quantile(d, 0.5),
          p90_duration_sec: quantile(d, 0.9),
          p95_duration_sec: quantile(d, 0.95),
          max_duration_sec: Math.max(...d),
          mean_message_count: mean(m),
          p50_message_count: quantile(m, 0.5),
          p90_message_count: quantile(m, 0.9),
        } satisfies Expected;
      })
      .sort((a, b) => cmp(a.agent_id, b.agent_id) || cmp(a.channel, b.channel));
    expectTable(csv('durations'), expected, 'durations');
  });

  it('hourly_volume (UTC)', () => {
    expectTable(csv('hourly_volume'), expectedHourly(select(), 'UTC'), 'hourly_volume');
  });

  it('conversation_list', () => {
    expectTable(csv('conversation_list'), expectedConversationList(select()), 'conversation_list');
  });

  it('coverage', () => {
    const expected = [...groupBy(select(), (c) => local(c.startedAt, 'UTC').day).entries()]
      .map(([day, g]) => ({
        day,
        conversations: g.length,
        listed: g.length,
        details_stored: count(g, (c) => c.detailStatus === 'stored'),
        details_coerced: count(g, (c) => c.detailStatus === 'stored' && c.coerced),
        details_in_progress: count(g, (c) => c.detailStatus === 'in_progress'),
        details_set_aside: count(g, (c) => c.detailStatus === 'set_aside'),
        details_deleted: count(g, (c) => c.detailStatus === 'deleted'),
        details_missing: count(g, (c) => c.detailStatus === 'missing'),
        details_with_errors: count(g, (c) => (c.detailStatus === 'missing' || c.detailStatus === 'set_aside') && c.hasError),
        detail_coverage: count(g, (c) => c.detailStatus === 'stored') / count(g, (c) => c.detailStatus !== 'deleted'),
        // no sync here downloaded recordings (test/recordings.test.ts counts them)
        recordings_expected: 0,
        recordings_stored: 0,
        recordings_missing: 0,
        recordings_expired: 0,
      }))
      .sort((a, b) => cmp(a.day, b.day));
    const table = csv('coverage');
    expectTable(table, expected, 'coverage');
    const total = (col: string) => table.rows.reduce((s, r) => s + Number(r[col]), 0);
    expect(total('details_missing')).toBe(6);
    expect(total('details_set_aside')).toBe(2);
    expect(total('details_deleted')).toBe(1);
    expect(total('details_coerced')).toBe(1);
    expect(total('details_with_errors')).toBe(4);
    expect(total('conversations')).toBe(dataset.conversations.length);
    expect(total('details_in_progress')).toBe(count(convs, (c) => c.outcome === null));
  });

  it('early_hangups (--early-seconds 40)', () => {
    const list = select();
    const early = list.filter(
      (c) => c.channel === 'voice' && c.outcome === 'hung_up' && (c.duration! <= 40 || c.messages <= 2),
    );
    expect(early.length).toBeGreaterThan(0);
    const expected: Expected[] = [];
    for (const [agentId, g] of groupBy(early, (c) => c.agentId)) {
      const voiceEnded = count(list, (c) => c.agentId === agentId && c.channel === 'voice' && ended(c));
      for (const [nodeJson, h] of groupBy(g, (c) => JSON.stringify(c.lastNode))) {
        expected.push({
          agent_id: agentId,
          agent_name: g[0]!.agentName,
          node_key: JSON.parse(nodeJson) as string | null,
          early_hangups: h.length,
          share: h.length / g.length,
          voice_ended: voiceEnded,
          early_hangup_rate: h.length / voiceEnded,
          avg_duration_sec: mean(h.map((c) => c.duration!)),
          avg_message_count: mean(h.map((c) => c.messages)),
        });
      }
    }
    expected.sort(
      (a, b) =>
        cmp(a.agent_id as string, b.agent_id as string) ||
        (b.early_hangups as number) - (a.early_hangups as number) ||
        cmp(a.node_key as string | null, b.node_key as string | null),
    );
    expectTable(csv('early_hangups'), expected, 'early_hangups');
  });

  it('node_funnel', () => {
    const list = select();
    const table = csv('node_funnel');
    const expectedRows = new Set<string>();
    for (const [agentId, g] of groupBy(list, (c) => c.agentId)) {
      const withPath = count(g, (c) => c.path.length > 0);
      const nodes = new Set(g.flatMap((c) => c.path.map((p) => p.node_key)));
      for (const node of nodes) {
        const reached = g.filter((c) => c.path.some((p) => p.node_key === node));
        expectedRows.add(agentId + '|' + node);
        const row = table.rows.find((r) => r.agent_id === agentId && r.node_key === node);
        expect(row, `${agentId} ${node}`).toBeDefined();
        expect(Number(row!.conversations_reached)).toBe(reached.length);
        expect(Math.abs(Number(row!.reach_rate) - round4(reached.length / withPath))).toBeLessThanOrEqual(1.0001e-4);
        expect(Number(row!.visits)).toBe(reached.reduce((s, c) => s + c.path.filter((p) => p.node_key === node).length, 0));
        expect(Number(row!.ended_here)).toBe(count(reached, (c) => c.lastNode === node));
        expect(Number(row!.completed)).toBe(count(reached, (c) => c.outcome === 'completed'));
        expect(Number(row!.in_progress)).toBe(count(reached, (c) => c.outcome === null));
      }
    }
    expect(table.rows.length).toBe(expectedRows.size);
  });

  it('containment_trend', () => {
    const table = csv('containment_trend');
    // weeks start on Monday (UTC here)
    for (const row of table.rows) expect(new Date(`${row.week}T00:00:00Z`).getUTCDay()).toBe(1);
    const weekOf = (d: Date) => {
      const day = new Date(`${local(d, 'UTC').day}T00:00:00Z`);
      const back = (day.getUTCDay() + 6) % 7;
      return new Date(day.getTime() - back * 86_400_000).toISOString().slice(0, 10);
    };
    const groups = groupBy(select(), (c) => JSON.stringify([weekOf(c.startedAt), c.agentId]));
    expect(table.rows.length).toBe(groups.size);
    const rate = (g: Conv[], outcome: string) => ratio(count(g, (c) => c.outcome === outcome), count(g, ended));
    for (const row of table.rows) {
      const g = groups.get(JSON.stringify([row.week, row.agent_id]))!;
      expect(Number(row.conversations)).toBe(g.length);
      expect(Number(row.containment_rate)).toBeCloseTo(rate(g, 'completed')!, 4);
      const prevWeek = new Date(new Date(`${row.week}T00:00:00Z`).getTime() - 7 * 86_400_000).toISOString().slice(0, 10);
      const prev = groups.get(JSON.stringify([prevWeek, row.agent_id]));
      if (prev) {
        expect(Number(row.prev_conversations)).toBe(prev.length);
        expect(Number(row.containment_rate_change)).toBeCloseTo(rate(g, 'completed')! - rate(prev, 'completed')!, 3);
        expect(Number(row.transfer_rate_change)).toBeCloseTo(rate(g, 'transferred')! - rate(prev, 'transferred')!, 3);
      } else {
        expect(row.prev_conversations).toBe('');
        expect(row.containment_rate_change).toBe('');
      }
    }
  });

  it('agent_leaderboard', () => {
    const table = csv('agent_leaderboard');
    const perAgent = groupBy(select(), (c) => c.agentId);
    expect(table.rows.length).toBe(perAgent.size);
    for (const row of table.rows) {
      const g = perAgent.get(row.agent_id!)!;
      expect(Number(row.conversations)).toBe(g.length);
      expect(row.small_sample).toBe(String(g.length < 20));
      expect(Number(row.completion_rate)).toBeCloseTo(ratio(count(g, (c) => c.outcome === 'completed'), count(g, ended))!, 4);
      const calls = g.flatMap((c) => c.calls);
      expect(Number(row.tool_calls)).toBe(calls.length);
      expect(Number(row.tool_failures)).toBe(calls.filter((k) => k.status !== 'ok').length);
    }
    // sample-size flag first, then completion rate, highest first
    const keys = table.rows.map((r) => [r.small_sample === 'true' ? 1 : 0, -Number(r.completion_rate)] as const);
    for (let i = 1; i < keys.length; i++) {
      expect(keys[i - 1]![0] < keys[i]![0] || (keys[i - 1]![0] === keys[i]![0] && keys[i - 1]![1] <= keys[i]![1])).toBe(true);
    }
  });
});

describe('report parameters', () => {
  it('--tz buckets days and hours in that zone (across a DST change)', async () => {
    const tz = 'America/New_York';
    const { out } = await run('tz', { names: ['hourly_volume', 'outcomes', 'coverage'], filters: { tz: 'america/new_york' } });
    expectTable(readCsv(join(out, 'hourly_volume.csv')), expectedHourly(select(), tz), 'hourly_volume NY');
    expectTable(readCsv(join(out, 'outcomes.csv')), expectedOutcomes(select(), tz), 'outcomes NY');
    const days = readCsv(join(out, 'coverage.csv')).rows.map((r) => r.day);
    expect(days).toEqual([...new Set(select().map((c) => local(c.startedAt, tz).day))].sort());
  });

  it('--tz with a half-hour offset', async () => {
    const tz = 'Asia/Kolkata';
    const { out } = await run('tz2', { names: ['hourly_volume'], filters: { tz } });
    expectTable(readCsv(join(out, 'hourly_volume.csv')), expectedHourly(select(), tz), 'hourly_volume Kolkata');
  });

  it('--from/--to: a date is midnight in --tz, --from inclusive, --to exclusive', async () => {
    const tz = 'America/New_York';
    const filters: ReportFilters = {
      tz,
      from: parseReportTime('--since', '2026-10-25', NOW),
      to: parseReportTime('--until', '2026-11-02', NOW),
    };
    const { out } = await run('range', { names: ['outcomes', 'conversation_list', 'transfer_nodes'], filters });
    // 2026-10-25 00:00 EDT (UTC-4) and 2026-11-02 00:00 EST (UTC-5): the US left DST on Nov 1
    const from = new Date('2026-10-25T04:00:00Z');
    const to = new Date('2026-11-02T05:00:00Z');
    const list = select({ from, to });
    expect(list.length).toBeGreaterThan(50);
    expect(list.length).toBeLessThan(convs.length);
    expectTable(readCsv(join(out, 'conversation_list.csv')), expectedConversationList(list), 'conversation_list range');
    expectTable(readCsv(join(out, 'outcomes.csv')), expectedOutcomes(list, tz), 'outcomes range');
    expectTable(
      readCsv(join(out, 'transfer_nodes.csv')),
      expectedLastNodeReport(list, 'transferred', 'transfers', 'visit_transfer_rate'),
      'transfer_nodes range',
    );
  });

  it('--from as an exact time and a relative duration; --channel', async () => {
    const instant = '2026-11-01T10:30:00Z';
    const { out } = await run('rel', {
      names: ['conversation_list', 'durations'],
      filters: {
        from: parseReportTime('--since', instant, NOW),
        to: parseReportTime('--until', '2d', NOW),
        channel: 'chat',
      },
    });
    const list = select({ from: new Date(instant), to: new Date(NOW.getTime() - 2 * 86_400_000), channel: 'chat' });
    expect(list.length).toBeGreaterThan(5);
    expectTable(readCsv(join(out, 'conversation_list.csv')), expectedConversationList(list), 'conversation_list rel');
    const durations = readCsv(join(out, 'durations.csv'));
    expect(new Set(durations.rows.map((r) => r.channel))).toEqual(new Set(['chat']));
  });

  it('--from yesterday --to today are local midnights in --tz', async () => {
    const { out } = await run('days', {
      names: ['conversation_list'],
      filters: {
        tz: 'Asia/Tokyo',
        from: parseReportTime('--since', 'yesterday', NOW),
        to: parseReportTime('--until', 'today', NOW),
      },
    });
    // NOW is 2026-11-06 21:00 in Tokyo (UTC+9): yesterday there began 2026-11-04T15:00Z
    const list = select({ from: new Date('2026-11-04T15:00:00Z'), to: new Date('2026-11-05T15:00:00Z') });
    expect(list.length).toBeGreaterThan(5);
    expectTable(readCsv(join(out, 'conversation_list.csv')), expectedConversationList(list), 'conversation_list days');
  });

  it('--agent (repeatable) filters every report; an injection-looking id is just a value', async () => {
    const agents = [...new Set(convs.map((c) => c.agentId))].sort().slice(0, 2);
    const { out } = await run('agents', { filters: { agents } });
    const list = select({ agents });
    expectTable(readCsv(join(out, 'conversation_list.csv')), expectedConversationList(list), 'conversation_list agents');
    expectTable(readCsv(join(out, 'tool_failures.csv')), expectedToolFailures(list), 'tool_failures agents');
    expectTable(
      withHangUps(readCsv(join(out, 'drop_off.csv'))),
      expectedLastNodeReport(list, 'hung_up', 'hang_ups', 'exit_rate'),
      'drop_off agents',
      FLOW_COLUMNS,
    );
    for (const name of ['outcomes', 'transfers', 'agent_leaderboard', 'node_funnel', 'tool_failure_log']) {
      for (const row of readCsv(join(out, `${name}.csv`)).rows) expect(agents, name).toContain(row.agent_id);
    }

    // An id the database does not know is refused by name (bound as a value, never pasted as SQL).
    await expect(run('evil', { filters: { agents: ["x' OR 1=1 --", agents[0]!] } })).rejects.toThrow(
      /^--agent "x' OR 1=1 --" is not an agent in the database: list the agents with convoduck query "SELECT id, name FROM agents/,
    );
    const evilOut = readdirSync(dir).filter((n) => n.startsWith('evil-'));
    expect(evilOut).toHaveLength(1);
    expect(readdirSync(join(dir, evilOut[0]!))).toEqual([]); // refused before any file was written

    // A filter nothing matches: every report still writes its header.
    const empty = await run('empty', {
      filters: { from: parseReportTime('--since', '2020-01-01', NOW), to: parseReportTime('--until', '2020-01-02', NOW) },
    });
    for (const r of empty.results) {
      if (r.name === 'connection_health') {
        // every connection, none with a call
        expect(readCsv(r.path).rows.every((row) => row.calls === '0')).toBe(true);
      } else if (r.name === 'hourly_volume' || r.name === 'summary') {
        // the reports that always have rows: zeros when nothing matches
        expect(readCsv(r.path).rows.every((row) => row.conversations === '0')).toBe(true);
      } else {
        expect(r.rows, r.name).toBe(0);
        const text = readFileSync(r.path, 'utf8');
        expect(text.split('\n').filter(Boolean), r.name).toHaveLength(1); // the header, even when empty
        expect(text.startsWith(r.columns[0]!)).toBe(true);
      }
    }
  });

  it('an unknown time zone or an empty range is an InvalidInputError', async () => {
    await expect(run('badtz', { filters: { tz: 'Mars/Olympus' } })).rejects.toThrow(InvalidInputError);
    await expect(
      run('badrange', {
        filters: { from: parseReportTime('--since', '2026-11-02', NOW), to: parseReportTime('--until', '2026-11-01', NOW) },
      }),
    ).rejects.toThrow(/must be before --until/);
    await expect(run('badname', { names: ['outcomes', 'nope'] })).rejects.toThrow(/unknown report "nope".*outcomes/);
  });
});

describe('output formats and spreadsheet safety', () => {
  let sqlDir: string;
  let callerLines: { id: string; seq: number; text: string }[];

  beforeAll(() => {
    // A report added by a user: a file, no TypeScript. It shows caller text, which the
    // simulator sometimes starts with =, +, - or @.
    sqlDir = join(dir, 'custom-sql');
    mkdirSync(sqlDir);
    writeFileSync(
      join(sqlDir, 'caller_lines.sql'),
      `-- Title: What callers said
-- One row: one caller turn.
-- Columns: conversation_id, seq, text, and a few typed columns.
-- Parameters: the filters; --tz.

SELECT t.conversation_id, t.seq, t.text,
       -5 AS negative_number, '-5' AS negative_text, 1 / 3 AS third,
       t.spoken_at, timezone($tz, t.spoken_at) AS spoken_local
FROM transcript_turns t
JOIN filtered_conversations c ON c.id = t.conversation_id
WHERE t.speaker = 'caller'
ORDER BY t.conversation_id, t.seq;
-- end
`,
    );
    callerLines = convs
      .flatMap((c) => c.transcript.map((t, seq) => ({ id: c.id, seq, text: t.text, speaker: t.speaker })))
      .filter((t) => t.speaker === 'caller')
      .sort((a, b) => cmp(a.id, b.id) || a.seq - b.seq);
    expect(callerLines.filter((l) => /^[=+\-@]/.test(l.text)).length).toBeGreaterThan(3);
  });

  it('neutralises formula-looking text cells with a leading quote, never numbers; --raw keeps them', async () => {
    const { out, results } = await run('formula', { sqlDir, filters: { tz: 'Europe/Berlin' } });
    expect(results.map((r) => r.name)).toEqual(['caller_lines']);
    const table = readCsv(join(out, 'caller_lines.csv'));
    expect(table.rows.map((r) => r.text)).toEqual(callerLines.map((l) => neutralise(l.text)));
    expect(table.rows.some((r) => r.text!.startsWith("'="))).toBe(true);
    expect(table.rows.some((r) => r.text!.includes('\n'))).toBe(true); // multi-line cells survive
    const first = table.rows[0]!;
    expect(first.negative_number).toBe('-5');
    expect(first.negative_text).toBe("'-5");
    expect(first.third).toBe('0.3333');
    expect(first.spoken_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    // A local TIMESTAMP (Berlin wall time) is read in --tz and printed as the instant it names.
    for (const row of table.rows) expect(row.spoken_local).toBe(row.spoken_at);

    const raw = await run('formula-raw', { sqlDir, raw: true });
    const rawTable = readCsv(join(raw.out, 'caller_lines.csv'));
    expect(rawTable.rows.map((r) => r.text)).toEqual(callerLines.map((l) => l.text));
    expect(rawTable.rows[0]!.negative_text).toBe('-5');
  });

  it('--excel writes a UTF-8 byte-order mark and CRLF line ends', async () => {
    const { out } = await run('excel', { sqlDir, excel: true });
    const bytes = readFileSync(join(out, 'caller_lines.csv'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8').slice(1);
    expect(text.startsWith('conversation_id,seq,text,')).toBe(true);
    const records = parseCsv(text);
    expect(records.length).toBe(callerLines.length + 1);
    // every record ends with CRLF (line breaks inside quoted cells are the callers' own)
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.split('\r\n').length - 1).toBeGreaterThanOrEqual(records.length);
    expect(readdirSync(out).sort()).toEqual(['caller_lines.csv', 'columns.md']); // no temporary files left behind
  });

  it('json is an array of objects; parquet keeps native types', async () => {
    const json = await run('json', { names: ['conversation_list', 'tool_failure_log'], format: 'json' });
    const list = JSON.parse(readFileSync(join(json.out, 'conversation_list.json'), 'utf8')) as Record<string, unknown>[];
    const expected = expectedConversationList(select(), true);
    expect(list.length).toBe(expected.length);
    expect(list[0]!.id).toBe(expected[0]!.id);
    expect(list[0]!.started_at).toBe(expected[0]!.started_at);
    expect(typeof list[0]!.message_count).toBe('number');
    const failuresLog = JSON.parse(readFileSync(join(json.out, 'tool_failure_log.json'), 'utf8')) as Record<string, unknown>[];
    expect(failuresLog.length).toBeGreaterThan(0);
    for (const entry of failuresLog) {
      // JSON columns stay JSON (nested), not text
      const call = convs.find((c) => c.id === entry.conversation_id)!.calls[entry.seq as number]!;
      expect(entry.output_redacted).toEqual(call.output_redacted ?? null);
    }

    const parquet = await run('parquet', { names: ['conversation_list'], format: 'parquet' });
    const file = join(parquet.out, 'conversation_list.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, any_value(typeof(started_at)) AS t, any_value(typeof(duration_sec)) AS d
         FROM read_parquet($file)`,
        { file },
      );
      expect(reader.getRowObjectsJS()[0]).toEqual({ n: expected.length, t: 'TIMESTAMP WITH TIME ZONE', d: 'INTEGER' });
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    await expect(run('excel-json', { format: 'json', excel: true })).rejects.toThrow(/--excel/);
  });
});

describe('convoduck report (CLI)', () => {
  it('--list lists every report with its title', async () => {
    const result = await runCli(['report', '--list']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(ALL_REPORTS);
    expect(result.stdout).toMatch(/outcomes\s+Outcomes by day, agent and channel/);
  });

  it('writes the files from any working directory and says where each went', async () => {
    const cwd = fileDir('cwd');
    const result = await runCli(
      ['report', 'outcomes', 'conversation_list', '--db', dbPath, '--agent', convs[0]!.agentId],
      {},
      cwd,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    const list = select({ agents: [convs[0]!.agentId] });
    expect(result.stderr).toContain(`conversation_list: ${list.length} rows → ${join('reports', 'conversation_list.csv')}`);
    expect(result.stderr).toMatch(/^outcomes: \d+ rows → reports\/outcomes\.csv$/m);
    expectTable(
      readCsv(join(cwd, 'reports', 'conversation_list.csv')),
      expectedConversationList(list),
      'conversation_list via CLI',
    );
    expect(existsSync(join(cwd, 'reports', 'coverage.csv'))).toBe(false);
  });

  it('an unknown report name, time zone or flag value is exit 2 with one line and no stack trace', async () => {
    const cases = [
      ['report', 'outcomes', 'nonsense', '--db', dbPath],
      ['report', '--db', dbPath, '--tz', 'Nowhere/Land'],
      ['report', '--db', dbPath, '--since', 'last tuesday'],
      ['report', '--db', dbPath, '--channel', 'fax'],
      ['report', '--db', join(dir, 'does-not-exist.duckdb')],
    ];
    const results = await Promise.all(cases.map((args) => runCli(args, {}, dir)));
    results.forEach((result, i) => {
      const label = cases[i]!.join(' ');
      expect(result.code, label).toBe(2);
      expect(result.stderr.trim().split('\n'), label).toHaveLength(1);
      expect(result.stderr, label).toMatch(/^convoduck: /);
    });
    expect(results[0]!.stderr).toContain('unknown report "nonsense": available reports are abandonment, agent_changes, agent_leaderboard,');
    expect(results[1]!.stderr).toContain('--tz "Nowhere/Land" is not a known time zone');
  });
});
