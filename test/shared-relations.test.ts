// The shared relations reports read (sql/shared/STEP_NAME.sql): found as files, created in step
// order with the run's parameters bound, never listed as reports; an author's mistake in such a
// file is one clear error. Over a real sync from the simulator into a real DuckDB file.

import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import {
  defaultSharedSqlDir,
  loadReports,
  loadSharedRelations,
  runReports,
  type RunReportsOptions,
} from '../src/reports/index.js';
import { QueryError } from '../src/shared/errors.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('shared');

const NOW = new Date('2026-11-06T12:00:00Z');

let dir: string;
let dbPath: string;
let sim: Simulator;

beforeAll(async () => {
  dir = fileDir();
  dbPath = join(dir, 'shared.duckdb');
  sim = await startSimulator({ seed: 5, conversations: 120, now: NOW, days: 10, rateLimit: 100_000 });
  const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock() });
  expect(summary.status).toBe('ok');
});

afterAll(async () => {
  await sim?.close();
});

/** A fresh folder with these files (name → SQL); `withPackage` copies the package's shared files in first. */
function folder(label: string, files: Record<string, string>, withPackage = false): string {
  const path = fileDir(label);
  if (withPackage) {
    for (const f of readdirSync(defaultSharedSqlDir())) copyFileSync(join(defaultSharedSqlDir(), f), join(path, f));
  }
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(path, name), sql);
  return path;
}

async function run(label: string, options: Partial<RunReportsOptions>) {
  const out = join(dir, `out-${label}`);
  const results = await runReports({ dbPath, outDir: out, ...options });
  return { out, results };
}

function csvRows(path: string): string[][] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','));
}

describe('the package’s shared relations', () => {
  it('are created in step order, each file documenting what it returns, and none is a report', () => {
    const relations = loadSharedRelations();
    expect(relations.map((r) => r.name)).toEqual([
      'ratio',
      'filtered_conversations',
      'filtered_node_visits',
      'filtered_tool_calls',
      'filtered_turns',
      'answers',
      'flow_nodes',
      'node_visitors',
      'repeated_turns',
      'tool_failure_impact',
      'last_node_outcomes',
    ]);
    expect(relations.find((r) => r.name === 'filtered_conversations')?.materialized).toBe('table');
    for (const r of relations.filter((r) => r.name !== 'ratio')) {
      expect(r.header, r.name).toMatch(new RegExp(`^${r.name}: `));
      expect(r.header, r.name).toMatch(/One row:/);
      expect(r.header, r.name).toMatch(/Columns:/);
    }
    const reports = loadReports().map((r) => r.name);
    expect(reports).not.toContain('shared');
    for (const r of relations) expect(reports).not.toContain(r.name);
  });
});

describe('adding a shared relation is adding a file', () => {
  it('a report reads a new relation; files run by step number, with the parameters bound', async () => {
    // Lexically "100_" sorts before "10_": only numeric order creates zone_label, then
    // filtered_conversations (10), then voice_per_agent (50), then labelled (100).
    const sharedSqlDir = folder(
      'added',
      {
        '7_zone_label.sql': '-- zone_label\n-- Materialized: table\nSELECT $tz AS zone, $channel AS channel\n',
        '50_voice_per_agent.sql':
          '-- voice_per_agent\nSELECT agent_id, count(*) AS voice FROM filtered_conversations WHERE channel = \'voice\' GROUP BY agent_id\n',
        '100_labelled.sql': '-- labelled\nSELECT v.*, z.zone FROM voice_per_agent v, zone_label z\n',
      },
      true,
    );
    const sqlDir = folder('reports', {
      'voice.sql': '-- Title: voice per agent\nSELECT agent_id, voice, zone FROM labelled ORDER BY agent_id;\n',
    });
    const { out, results } = await run('added', {
      sqlDir,
      sharedSqlDir,
      filters: { tz: 'europe/berlin', channel: 'voice' },
    });
    expect(results.map((r) => r.name)).toEqual(['voice']);

    const expected = new Map<string, number>();
    for (const c of sim.dataset.conversations) {
      if (c.channel === 'voice') expected.set(c.agent_id, (expected.get(c.agent_id) ?? 0) + 1);
    }
    expect(expected.size).toBeGreaterThan(1);
    const rows = csvRows(join(out, 'voice.csv'));
    expect(rows).toEqual(
      [...expected.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, n]) => [id, String(n), 'Europe/Berlin']),
    );
  });

  it('the package’s reports run unchanged with an extra relation beside the package’s', async () => {
    const sharedSqlDir = folder('extra', { '90_unused.sql': '-- unused\nSELECT 1 AS x\n' }, true);
    const { results } = await run('extra', { sharedSqlDir, names: ['drop_off', 'node_funnel'] });
    expect(results.map((r) => r.name)).toEqual(['drop_off', 'node_funnel']);
    expect(results.every((r) => r.rows > 0)).toBe(true);
  });
});

describe('a mistake in a shared relation file is one clear error', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['a view using a parameter', { '10_v.sql': 'SELECT $tz AS zone\n' }, /v .*uses \$tz, and a view cannot take parameters: add the header line "-- Materialized: table"/],
    ['a file name without a step', { 'lonely.sql': 'SELECT 1 AS x\n' }, /lonely\.sql must be named STEP_NAME\.sql/],
    ['an unknown materialization', { '10_m.sql': '-- Materialized: cube\nSELECT 1 AS x\n' }, /"Materialized: cube" must be view or table/],
    ['a name used twice', { '10_twice.sql': 'SELECT 1 AS x\n', '20_twice.sql': 'SELECT 2 AS x\n' }, /twice is defined twice/],
    ['an unknown parameter', { '10_p.sql': '-- Materialized: table\nSELECT $nope AS x\n' }, /uses unknown parameter \$nope/],
    ['not a SELECT', { '10_d.sql': 'DELETE FROM agents\n' }, /d .*must be one SELECT/],
    ['SQL DuckDB rejects', { '10_bad.sql': 'SELECT no_such_column FROM agents\n' }, /shared relation bad .*failed: Binder Error/],
  ];
  for (const [label, files, message] of cases) {
    it(label, async () => {
      const sharedSqlDir = folder('bad', files);
      // a report that reads every relation of the cases: a run creates only the relations its reports read
      const sqlDir = folder('reads', { 'reads.sql': '-- Title: reads them\nSELECT 1 AS x FROM v, m, twice, p, d, bad\n' });
      const attempt = run('bad', { sharedSqlDir, sqlDir, names: ['reads'] });
      await expect(attempt).rejects.toBeInstanceOf(QueryError);
      await expect(attempt).rejects.toThrow(message);
    });
  }

  it('is created only for a run whose reports read it', async () => {
    const sharedSqlDir = folder('lazy', { '90_boom.sql': "-- Materialized: table\nSELECT error('boom') AS x\n" }, true);
    const sqlDir = folder('lazy-reports', { 'calm.sql': '-- Title: calm\nSELECT count(*) AS n FROM filtered_conversations\n', 'loud.sql': '-- Title: loud\nSELECT * FROM boom\n' });
    expect((await run('lazy-calm', { sharedSqlDir, sqlDir, names: ['calm'] })).results.map((r) => r.rows)).toEqual([1]);
    await expect(run('lazy-loud', { sharedSqlDir, sqlDir, names: ['loud'] })).rejects.toThrow(/shared relation boom .*boom/);
  });

  it('a folder inside sql/ is never a report', () => {
    const sqlDir = folder('nested', { 'only.sql': '-- Title: the only report\nSELECT 1 AS x\n' });
    mkdirSync(join(sqlDir, 'shared'));
    writeFileSync(join(sqlDir, 'shared', '10_x.sql'), 'SELECT 1 AS x\n');
    mkdirSync(join(sqlDir, 'folder.sql'));
    expect(loadReports(sqlDir).map((r) => r.name)).toEqual(['only']);
  });
});
