// Every command over every kind of real data at once: one small space served with every
// real-data mode of the simulator (long bodies kept in parts, hard text with strings cut
// mid-surrogate, each kind of type drift, bodies broken on the wire, conversations deleted at the
// source, agent, tool and connection names cut mid-surrogate), synced with its recordings into one database, which is also a --db-dir folder's space file. Then each
// command, as a user runs it, over the database, the folder and an exported lake: every one exits
// 0 and says what was stored. No command parses a stored body again on read.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIFT_KINDS, startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('every-command');
const RULES = new URL('../docs/alerts.example.toml', import.meta.url).pathname;

let sim: Simulator;
let db: string;
let dir: string;
let lake: string;
let env: NodeJS.ProcessEnv;
/** what the store must hold, from the simulator's truth */
let want: { listed: number; details: number; final: number; setAside: number; coerced: number; deleted: number; links: number };

const cli = async (args: string[]): Promise<CliResult> => {
  const r = await runCli(args, env);
  expect(r.code, `convoduck ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
};
const sql = <T>(path: string, text: string): Promise<T[]> => Database.with(path, (d) => d.all<T & Record<string, unknown>>(text), { readOnly: true });
const sum = (rows: Record<string, unknown>[], column: string): number => rows.reduce((n, r) => n + Number(r[column]), 0);

beforeAll(async () => {
  sim = await startSimulator({ seed: 4545, conversations: 70, rateLimit: 100_000, realData: { text: 0.1, drift: 0.1, deleted: 0.03, configText: true } });
  const finished = sim.dataset.records.filter((r) => !r.open && r.summary.outcome !== null).map((r) => r.id);
  const modes = [
    { long: { turns: 1_000 } }, // a body over the inline limit: kept in parts
    { text: true }, // strings cut mid-surrogate, in the list entry too
    { text: true, loneSurrogates: false },
    ...DRIFT_KINDS.map((kind) => ({ drift: [kind] })),
    { broken: 'invalid_json' as const },
    { broken: 'invalid_utf8' as const },
    { deleted: true },
  ];
  modes.forEach((m, i) => sim.realData.set(finished[i]!, m));
  const truths = sim.dataset.records.map((r) => ({ id: r.id, open: r.open, t: sim.realData.truth(r.id) }));
  const stored = truths.filter(({ t }) => t.expect !== 'deleted');
  const notJson = finished[modes.length - 3]!;
  want = {
    listed: truths.length,
    details: stored.length,
    // a detail set aside shows no conversation finished
    final: stored.filter(({ open, t }) => !open && (t.expect === 'exact' || t.expect === 'coerced')).length,
    setAside: stored.filter(({ t }) => t.expect === 'set_aside').length,
    coerced: stored.filter(({ t }) => t.expect === 'coerced').length,
    deleted: truths.length - stored.length,
    // a body that is not JSON says nothing, its link included
    links: stored.filter(({ id }) => id !== notJson && sim.dataset.detail(id)?.recording_url).length,
  };
  expect(want.coerced).toBeGreaterThan(0);
  expect(want.links).toBeGreaterThan(0);

  const root = fileDir();
  db = join(root, 'one.duckdb');
  dir = join(root, 'spaces');
  lake = join(root, 'lake');
  env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey };
  await cli(['sync', '--db', db, '--recordings', join(root, 'recordings')]);
  // a folder of space files: the space's file is the database of its one space, as `sync --db-dir` writes it
  mkdirSync(dir);
  copyFileSync(db, join(dir, `${sim.space}.duckdb`));
  // the lake the --lake commands read
  await cli(['export', '--db', db, '--out', lake, '--partition-by', 'space,day']);
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

describe('every command over every kind of real data', () => {
  it('stores every mode, and decides the load facts as each detail is written', async () => {
    const [facts] = await sql<{ n: number; links: number; final: number; set_aside: number; coerced: number }>(
      db,
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE has_recording_link)::INTEGER AS links, count(*) FILTER (WHERE is_final)::INTEGER AS final,
              (SELECT count(*) FROM raw_conversations WHERE detail_state = 'set_aside')::INTEGER AS set_aside,
              (SELECT count(*) FROM raw_conversations WHERE detail_state = 'coerced')::INTEGER AS coerced
       FROM conversation_load_state`,
    );
    expect(facts).toEqual({ n: want.details, links: want.links, final: want.final, set_aside: want.setAside, coerced: want.coerced });
    const [parted] = await sql<{ n: number }>(db, `SELECT count(DISTINCT id)::INTEGER AS n FROM raw_conversation_parts`);
    expect(parted!.n).toBeGreaterThan(0);
  });

  it('reports in every format, and the page, over the database, the folder and the lake', async () => {
    const out = fileDir('reports');
    for (const format of ['csv', 'json', 'parquet']) await cli(['report', '--db', db, '--format', format, '--out', join(out, format)]);
    await cli(['report', '--db', db, '--html', '--out', join(out, 'html')]);
    expect(readFileSync(join(out, 'html', 'report.html'), 'utf8')).toContain('</html>');
    const coverage = JSON.parse(readFileSync(join(out, 'json', 'coverage.json'), 'utf8')) as Record<string, unknown>[];
    expect(sum(coverage, 'conversations')).toBe(want.listed);
    expect(sum(coverage, 'details_set_aside')).toBe(want.setAside);
    expect(sum(coverage, 'details_deleted')).toBe(want.deleted);
    expect(sum(coverage, 'recordings_expected')).toBe(want.links);

    await cli(['report', 'coverage', '--lake', lake, '--format', 'json', '--out', join(out, 'lake')]);
    await cli(['report', 'coverage', '--db-dir', dir, '--format', 'json', '--out', join(out, 'dir')]);
    for (const where of ['lake', 'dir']) {
      const rows = JSON.parse(readFileSync(join(out, where, 'coverage.json'), 'utf8')) as Record<string, unknown>[];
      expect(sum(rows, 'conversations'), where).toBe(want.listed);
      expect(sum(rows, 'recordings_expected'), where).toBe(want.links);
    }
  });

  it('shows status, exports, queries and searches over the database, the folder and the lake', async () => {
    type Status = { tables: Record<string, number>; details: Record<string, number>; recordings: Record<string, number> };
    const ofDb = JSON.parse((await cli(['status', '--db', db, '--json'])).stdout) as Status;
    const ofDir = JSON.parse((await cli(['status', '--db-dir', dir, '--json'])).stdout) as { spaces: { space: string; status: Status }[] };
    expect(ofDir.spaces.map((s) => s.space)).toEqual([sim.space]);
    for (const [where, status] of [['--db', ofDb], ['--db-dir', ofDir.spaces[0]!.status]] as const) {
      expect(status.tables.conversation_load_state, where).toBe(want.details);
      expect(status.details, where).toMatchObject({ setAside: want.setAside, coerced: want.coerced, deleted: want.deleted });
      expect(status.recordings.expected, where).toBe(want.links);
    }
    await cli(['status', '--db', db]);
    await cli(['export', '--db-dir', dir, '--out', fileDir('export-dir'), '--format', 'csv', '--partition-by', 'space']);
    const count = `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE has_recording_link)::INTEGER AS links FROM conversation_load_state`;
    // the term most turns hold: every source finds as many of its turns
    const [top] = await sql<{ term: string; turns: number }>(db, `SELECT term, count(*)::INTEGER AS turns FROM search_terms GROUP BY term ORDER BY turns DESC, term LIMIT 1`);
    for (const where of [['--db', db], ['--db-dir', dir], ['--lake', lake]]) {
      const rows = JSON.parse((await cli(['query', ...where, '--format', 'json', count])).stdout) as { n: number; links: number }[];
      expect(rows, where[0]).toEqual([{ n: want.details, links: want.links }]);
      const found = JSON.parse((await cli(['search', ...where, '--json', '--limit', '100000', top!.term])).stdout) as unknown[];
      expect(found.length, where[0]).toBe(top!.turns);
    }
  });

  it('alerts, forgets and rebuilds, in the database and the folder', async () => {
    for (const where of [['--db', db], ['--db-dir', dir]]) await cli(['alert', ...where, '--rules', RULES]);
    const [gone] = await sql<{ id: string; link: boolean }>(db, `SELECT conversation_id AS id, has_recording_link AS link FROM conversation_load_state WHERE has_recording_link LIMIT 1`);
    for (const where of [['--db', db], ['--db-dir', dir]]) {
      await cli(['forget', ...where, '--id', gone!.id]);
      await cli(['rebuild', ...where]);
    }
    for (const path of [db, join(dir, `${sim.space}.duckdb`)]) {
      const [after] = await sql<{ n: number; links: number }>(path, `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE has_recording_link)::INTEGER AS links FROM conversation_load_state`);
      expect(after).toEqual({ n: want.details - 1, links: want.links - 1 });
    }
  });
});
