// Every report over a lake (`--lake`) and over a folder of space files (`--db-dir`), byte for byte
// against the same reports over one database holding the same spaces. Three simulated spaces over
// real HTTP (one with exotic values, one with real-world text, type drift and deletions) are
// synced into one database, which is exported as the lake; the same spaces are synced one file
// each, and those files merged into one database by plain DuckDB as the second reference.
import { DuckDBInstance } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { ALL_VIEWS_SQL } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('lake-reports');
const NOW = new Date('2026-11-20T12:00:00Z');
// a fixed period: the page's period and tiles then depend on the data alone
const PERIOD = ['--since', '2026-10-01', '--until', '2026-11-21'];
// the page's line saying the minute it was written
const WRITTEN = /Written [^<]*\(UTC\)\./;

let root: string;
let one: string;
let lake: string;
let spaceDir: string;
let merged: string;
let term: string;

/** Every file under `dir`: its path, size, modification time and SHA-256. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(`${relative(dir, p)} ${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(dir);
  return out;
}

function config(sims: Simulator[], name: string): string {
  const text = sims
    .map((s) => {
      const key = join(root, `key-${s.space}`);
      writeFileSync(key, `${s.apiKey}\n`, { mode: 0o600 });
      return `[[space]]\nbase_url = "${s.baseUrl}"\napi_key_file = "${key}"\nslug = "${s.space}"\n`;
    })
    .join('\n');
  const path = join(root, `${name}.toml`);
  writeFileSync(path, text);
  return path;
}

async function ok(args: string[]): Promise<string> {
  const res = await runCli(args);
  expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(0);
  return res.stdout;
}

/** One database holding every table of the space files, written by plain DuckDB (no convoduck code). */
async function mergeFiles(files: string[], target: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(`ATTACH '${target}' AS merged`);
    for (const [i, f] of files.entries()) await conn.run(`ATTACH '${f}' AS s${i} (READ_ONLY)`);
    const tables = (await conn.runAndReadAll(`SELECT table_name FROM duckdb_tables() WHERE database_name = 's0' ORDER BY table_name`))
      .getRowObjectsJS()
      .map((r) => String(r.table_name));
    for (const t of tables) {
      const sources = t === 'convoduck_meta' ? ['s0'] : files.map((_, i) => `s${i}`);
      await conn.run(`CREATE TABLE merged.${t} AS ${sources.map((s) => `SELECT * FROM ${s}.${t}`).join(' UNION ALL BY NAME ')}`);
    }
    await conn.run('USE merged');
    await conn.run(ALL_VIEWS_SQL);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

beforeAll(async () => {
  root = fileDir();
  const sims = await Promise.all([
    startSimulator({ seed: 381, conversations: 45, now: NOW, days: 40, rateLimit: 100_000, exoticValues: true }),
    startSimulator({ seed: 382, conversations: 40, now: NOW, days: 40, rateLimit: 100_000, realData: { text: 0.2, drift: 0.3, deleted: 0.05 } }),
    startSimulator({ seed: 383, conversations: 35, now: NOW, days: 40, rateLimit: 100_000 }),
  ]);
  // conversations running at the first sync: their details are fetched in progress
  sims[2]!.addConversations(3, { open: true });
  const targets = [
    { config: () => config(sims, 'all'), db: join(root, 'one.duckdb') },
    ...sims.map((s) => ({ config: () => config([s], s.space), db: join(root, 'spaces', `${s.space}.duckdb`) })),
  ];
  try {
    one = targets[0]!.db;
    spaceDir = join(root, 'spaces');
    mkdirSync(spaceDir);
    // recordings kept: coverage then counts the details that carry a recording link
    for (const t of targets) await ok(['sync', '--config', t.config(), '--db', t.db, '--recordings', join(root, 'recordings')]);
    // they end, and a listing without details says so: the stored details stay the running ones
    sims[2]!.finishOpenConversations();
    for (const t of targets) await ok(['sync', '--config', t.config(), '--db', t.db, '--details', 'none']);
  } finally {
    await Promise.all(sims.map((s) => s.close()));
  }
  lake = join(root, 'lake');
  await ok(['export', '--db', one, '--out', lake, '--partition-by', 'space,day']);
  merged = join(root, 'merged.duckdb');
  await mergeFiles(readdirSync(spaceDir).filter((f) => f.endsWith('.duckdb')).map((f) => join(spaceDir, f)), merged);
  // a word the transcripts hold, so that search_matches and search have rows
  const terms = JSON.parse(await ok(['query', '--db', one, '--format', 'json', `SELECT term FROM search_terms GROUP BY term ORDER BY count(*) DESC, term LIMIT 1`]));
  term = terms[0].term;
}, 600_000);

/** The files of a report run, by name, as bytes. */
function files(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

describe('report --lake and --db-dir: the bytes of one database', () => {
  it('the data holds what only the load state tells: a set-aside detail, a recording link, a detail fetched running of a conversation since ended', async () => {
    const [facts] = JSON.parse(
      await ok([
        'query', '--db', one, '--format', 'json',
        `SELECT (SELECT count(*) FROM raw_conversations WHERE invalid_reason IS NOT NULL)::INTEGER AS set_aside,
                (SELECT count(*) FROM recordings WHERE state = 'stored')::INTEGER AS recordings,
                (SELECT count(*) FROM raw_conversations r JOIN conversations c USING (id) WHERE NOT r.is_final AND c.is_final)::INTEGER AS ended_since`,
      ]),
    );
    expect(facts.set_aside).toBeGreaterThan(0);
    expect(facts.recordings).toBeGreaterThan(0);
    expect(facts.ended_since).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('every report in sql/, as CSV and JSON, over the lake equals it over the database exported, and over the space files it equals it over their merge', async () => {
    const lakeBefore = snapshot(lake);
    const spacesBefore = snapshot(spaceDir);
    for (const format of ['csv', 'json']) {
      const run = async (name: string, source: string[]) => {
        const out = join(root, `${name}-${format}`);
        await ok(['report', '--format', format, '--out', out, '--search', term, ...PERIOD, ...source]);
        return files(out);
      };
      const overOne = await run('one', ['--db', one]);
      const overLake = await run('lake', ['--lake', lake]);
      const overMerged = await run('merged', ['--db', merged]);
      const overDir = await run('dir', ['--db-dir', spaceDir]);
      const reports = readdirSync(join(import.meta.dirname, '..', 'sql')).filter((f) => f.endsWith('.sql')).length;
      expect([...overOne.keys()].filter((f) => f.endsWith(`.${format}`))).toHaveLength(reports);
      expect([...overLake.keys()]).toEqual([...overOne.keys()]);
      expect([...overDir.keys()]).toEqual([...overMerged.keys()]);
      for (const [file, bytes] of overOne) {
        expect(overLake.get(file)!.equals(bytes), `${format}: ${file} over the lake differs`).toBe(true);
        expect(overDir.get(file)!.equals(overMerged.get(file)!), `${format}: ${file} over --db-dir differs`).toBe(true);
      }
      // the data is worth comparing: rows in the reports that read turns, drift and search terms
      expect(overOne.get(`search_matches.${format}`)!.length).toBeGreaterThan(200);
      if (format === 'csv') expect(overOne.get('api_drift.csv')!.toString().split('\n').length).toBeGreaterThan(3);
    }
    // read-only: not one file of the lake or of the space folder touched
    expect(snapshot(lake)).toEqual(lakeBefore);
    expect(snapshot(spaceDir)).toEqual(spacesBefore);
  }, 600_000);

  it('the page (report --html) over the lake and over the space files is the page over the database', async () => {
    const page = async (name: string, source: string[]) => {
      const out = join(root, `html-${name}`);
      await ok(['report', '--html', '--out', out, ...PERIOD, ...source]);
      // the page says the minute it was written: two runs either side of a minute differ there alone
      const html = readFileSync(join(out, 'report.html'), 'utf8');
      expect(html).toMatch(WRITTEN);
      return html.replace(WRITTEN, 'Written (when).');
    };
    expect(await page('lake', ['--lake', lake])).toBe(await page('one', ['--db', one]));
    expect(await page('dir', ['--db-dir', spaceDir])).toBe(await page('merged', ['--db', merged]));
  }, 300_000);

  it('query, search and --space read the lake and the space files as the database', async () => {
    const tables = [
      'SELECT * FROM conversations ORDER BY id',
      'SELECT * FROM transcript_turns ORDER BY conversation_id, seq',
      'SELECT * FROM agents ORDER BY id',
      'SELECT * FROM tool_calls ORDER BY conversation_id, seq',
      'SELECT * FROM conversation_load_state ORDER BY conversation_id',
      // of the raw details, all but the body (and the sync's own listing_changed)
      'SELECT id, space, fetched_at, invalid_reason, is_final, detail_state FROM raw_conversations ORDER BY id',
    ];
    for (const q of tables) {
      expect(await ok(['query', '--format', 'json', '--lake', lake, q])).toBe(await ok(['query', '--format', 'json', '--db', one, q]));
      expect(await ok(['query', '--format', 'json', '--db-dir', spaceDir, q])).toBe(await ok(['query', '--format', 'json', '--db', merged, q]));
    }
    const search = ['search', term, '--format', 'json', '--limit', '30'];
    expect(await ok([...search, '--lake', lake])).toBe(await ok([...search, '--db', one]));
    expect(await ok([...search, '--db-dir', spaceDir])).toBe(await ok([...search, '--db', merged]));
    const slug = readdirSync(spaceDir)[0]!.replace(/\.duckdb$/, '');
    const bySpace = async (name: string, source: string[]) => {
      const out = join(root, `space-${name}`);
      await ok(['report', 'outcomes', 'node_funnel', '--space', slug, '--out', out, ...PERIOD, ...source]);
      return [...files(out).values()].map((b) => b.toString());
    };
    expect(await bySpace('lake', ['--lake', lake])).toEqual(await bySpace('one', ['--db', one]));
    expect(await bySpace('dir', ['--db-dir', spaceDir])).toEqual(await bySpace('merged', ['--db', merged]));
  }, 300_000);

  it('a lake that is not there or not an export, and --lake beside --db or --db-dir: one line, exit 2, nothing written', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'not an export\n');
    const csvLake = join(root, 'csv-lake');
    await ok(['export', '--db', one, '--out', csvLake, '--format', 'csv', '--partition-by', 'space,day']);
    const cases: [string[], RegExp][] = [
      [['report', '--lake', csvLake], /--lake .*csv-lake holds a CSV export — --lake reads Parquet: /],
      [['report', '--lake', join(root, 'nowhere')], /--lake .*nowhere is not a folder — give the folder written by `convoduck export/],
      [['query', '--lake', empty, 'SELECT 1'], /--lake .*empty holds no convoduck export \(convoduck-export\.json\) — /],
      [['search', 'refund', '--lake', join(root, 'nowhere')], /is not a folder/],
      [['report', '--lake', lake, '--db', one], /--lake and --db both given — /],
      [['query', '--lake', lake, '--db-dir', spaceDir, 'SELECT 1'], /--lake and --db-dir both given — /],
      [['report', '--db-dir', empty], /--db-dir .*empty holds no space file \(<slug>\.duckdb\) — /],
    ];
    for (const [args, message] of cases) {
      const res = await runCli(args[0] === 'report' ? [...args, '--out', join(root, 'never')] : args);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    }
    expect(readdirSync(empty)).toEqual(['notes.txt']);
    expect(readdirSync(root)).not.toContain('never');
  }, 120_000);
});
