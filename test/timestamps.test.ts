// One timestamp format everywhere: a conversation synced from the simulator shows the same
// started_at text through query (csv, json), report (csv, in any --tz), export (csv) and status
// (text and json). The query's JS formatting and the SQL formatting that report, export and
// status use agree on every kind of fraction, and a TIMESTAMP without zone is read in the
// session's TimeZone exactly as DuckDB's own ::TIMESTAMPTZ cast reads it.

import { DuckDBInstance } from '@duckdb/node-api';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationSummary } from '../src/api/types.js';
import type { StatusReport } from '../src/status/report.js';
import { isoUtcSql } from '../src/shared/time.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('timestamps');

const NOW = new Date('2026-10-31T23:58:30Z');

let dir: string;
let dbPath: string;
let sim: Simulator;
let env: NodeJS.ProcessEnv;
/** started two seconds ago, 250 ms into its second: the newest conversation */
let fractional: ConversationSummary;
/** finished two minutes ago, on a whole second */
let whole: ConversationSummary;

/** How an instant must print: ISO 8601 UTC with Z, milliseconds only when there are some. */
function expectedText(iso: string): string {
  return new Date(iso).toISOString().replace(/\.000Z$/, 'Z');
}

/** `path`'s CSV cells as written (all text), keyed by the `id` column. */
async function csvCells(path: string, column: string): Promise<Map<string, string>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT id, ${column} AS v FROM read_csv($path, header = true, all_varchar = true)`,
      { path },
    );
    return new Map(reader.getRowObjectsJS().map((r) => [String(r.id), String(r.v)]));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  dir = fileDir();
  dbPath = join(dir, 'ts.duckdb');
  // fraction-z: the simulator's instants carry milliseconds, served as .123000Z
  sim = await startSimulator({ seed: 23, conversations: 80, now: NOW, days: 5, timeFormat: 'fraction-z', rateLimit: 100_000 });
  const second = Math.floor(sim.clock().getTime() / 1000) * 1000;
  whole = sim.addConversations(1, { open: false, startedAt: new Date(second - 120_000) })[0]!;
  fractional = sim.addConversations(1, { open: false, startedAt: new Date(second - 2_000 + 250) })[0]!;
  expect(expectedText(whole.started_at)).toMatch(/:\d\dZ$/);
  expect(expectedText(fractional.started_at)).toMatch(/\.250Z$/);
  env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
  const synced = await runCli(['sync'], env);
  expect(synced.code, synced.stderr).toBe(0);
});

afterAll(async () => {
  await sim?.close();
});

describe('one timestamp format', () => {
  it("prints a conversation's started_at identically in query, report, export and status", async () => {
    const ids = [whole.id, fractional.id];
    const want = new Map(ids.map((id, i) => [id, expectedText([whole, fractional][i]!.started_at)]));
    const seen: Record<string, Map<string, string>> = {};
    const inList = ids.map((id) => `'${id}'`).join(', ');
    const sql = `SELECT id, started_at FROM conversations WHERE id IN (${inList}) ORDER BY id`;

    const csv = await runCli(['query', '--format', 'csv', sql], env);
    expect(csv.code, csv.stderr).toBe(0);
    seen['query csv'] = new Map(csv.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(',') as [string, string]));

    const json = await runCli(['query', '--format', 'json', sql], env);
    expect(json.code, json.stderr).toBe(0);
    seen['query json'] = new Map((JSON.parse(json.stdout) as { id: string; started_at: string }[]).map((r) => [r.id, r.started_at]));

    const ndjson = await runCli(['query', '--format', 'ndjson', sql], env);
    seen['query ndjson'] = new Map(
      ndjson.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; started_at: string }).map((r) => [r.id, r.started_at]),
    );

    for (const tz of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
      const out = join(dir, `reports-${tz.replace('/', '-')}`);
      const report = await runCli(['report', 'conversation_list', '--tz', tz, '--out', out], env);
      expect(report.code, report.stderr).toBe(0);
      seen[`report csv --tz ${tz}`] = await csvCells(join(out, 'conversation_list.csv'), 'started_at');
    }

    const exported = await runCli(['export', '--format', 'csv', '--tables', 'conversations', '--out', join(dir, 'export')], env);
    expect(exported.code, exported.stderr).toBe(0);
    seen['export csv'] = await csvCells(join(dir, 'export', 'conversations', 'conversations.csv'), 'started_at');

    for (const [where, cells] of Object.entries(seen)) {
      for (const id of ids) expect(cells.get(id), `${where}: ${id}`).toBe(want.get(id));
    }

    // status shows the newest start: the fractional conversation
    const statusJson = JSON.parse((await runCli(['status', '--json'], env)).stdout) as StatusReport;
    expect(statusJson.newestConversationAt).toBe(want.get(fractional.id));
    const statusText = await runCli(['status'], env);
    expect(statusText.stdout).toContain(`newest     conversation started ${want.get(fractional.id)}\n`);
    // and the run's start, identically in status and a query of sync_runs
    const run = await runCli(['query', '--format', 'csv', 'SELECT started_at FROM sync_runs ORDER BY run_id DESC LIMIT 1'], env);
    expect(statusJson.runs[0]!.startedAt).toBe(run.stdout.split('\n')[1]);
    expect(statusText.stdout).toContain(`  ${statusJson.runs[0]!.startedAt}  `);
  });

  it('keeps dates as YYYY-MM-DD, and a report groups by its local day', async () => {
    const day = await runCli(['query', '--format', 'json', `SELECT started_at::DATE AS d FROM conversations WHERE id = '${fractional.id}'`], env);
    expect(JSON.parse(day.stdout)).toEqual([{ d: expectedText(fractional.started_at).slice(0, 10) }]);
    // 23:57 UTC on 31 October is 1 November in Kolkata (+05:30)
    const out = join(dir, 'coverage-kolkata');
    const report = await runCli(['report', 'coverage', '--tz', 'Asia/Kolkata', '--out', out], env);
    expect(report.code, report.stderr).toBe(0);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(
      `SELECT day FROM read_csv($path, header = true, all_varchar = true) ORDER BY day DESC LIMIT 1`,
      { path: join(out, 'coverage.csv') },
    );
    connection.closeSync();
    instance.closeSync();
    expect(reader.getRowObjectsJS()[0]!.day).toBe('2026-11-01');
  });

  it("query's formatting and the SQL formatting (report, export, status) agree on every fraction", async () => {
    const values = [
      '2026-10-31 23:59:59+00',
      '2026-10-31 23:59:59.25+00',
      '2026-10-31 23:59:59.001+00',
      '2026-10-31 23:59:59.250125+00',
      '2026-10-31 23:59:59.000007+00',
      '1969-12-31 23:59:59.999999+00',
      '0001-01-01 00:00:00+00',
    ];
    const sql =
      `SELECT ts, ${isoUtcSql('ts')} AS sql_text, ts::TIMESTAMP AS plain FROM ` +
      `(SELECT unnest([${values.map((v) => `TIMESTAMPTZ '${v}'`).join(', ')}]) AS ts)`;
    const res = await runCli(['query', '--format', 'json', sql], env);
    expect(res.code, res.stderr).toBe(0);
    const rows = JSON.parse(res.stdout) as { ts: string; sql_text: string; plain: string }[];
    expect(rows.map((r) => r.ts)).toEqual([
      '2026-10-31T23:59:59Z',
      '2026-10-31T23:59:59.250Z',
      '2026-10-31T23:59:59.001Z',
      '2026-10-31T23:59:59.250125Z',
      '2026-10-31T23:59:59.000007Z',
      '1969-12-31T23:59:59.999999Z',
      '0001-01-01T00:00:00Z',
    ]);
    for (const r of rows) {
      expect(r.sql_text).toBe(r.ts);
      expect(r.plain).toBe(r.ts); // the session is UTC: a TIMESTAMP is the same instant
    }
  });

  it('reads a TIMESTAMP without zone in the session TimeZone, as DuckDB casts it, across clock changes', async () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe']) {
      // every 15 minutes through both of the year's clock changes (both hemispheres' dates)
      const ranges = [
        ['2026-03-28', '2026-03-30'],
        ['2026-04-04', '2026-04-06'],
        ['2026-10-03', '2026-10-05'],
        ['2026-10-24', '2026-10-26'],
        ['2026-11-01', '2026-11-02'],
        ['2026-03-08', '2026-03-09'],
      ];
      const series = ranges
        .map(([from, to]) => `SELECT unnest(generate_series(TIMESTAMP '${from}', TIMESTAMP '${to}', INTERVAL 15 MINUTE)) AS wall`)
        .join(' UNION ALL ');
      const sql = `SET TimeZone = '${zone}'; SELECT wall, wall::TIMESTAMPTZ AS cast FROM (${series}) ORDER BY wall`;
      const res = await runCli(['query', '--format', 'csv', sql], env);
      expect(res.code, res.stderr).toBe(0);
      const lines = res.stdout.trimEnd().split('\n').slice(1);
      expect(lines.length).toBeGreaterThan(900);
      const differing = lines.filter((l) => {
        const [a, b] = l.split(',');
        return a !== b;
      });
      expect(differing, zone).toEqual([]);
    }
  });
});
