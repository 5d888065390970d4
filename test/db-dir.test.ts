// The commands over a folder of one DuckDB file per space (`--db-dir`), over real HTTP and real
// files: three simulated spaces synced by `sync --db-dir`, and the same three by one process into
// one database. status, check and export act on a shard's spaces and say which; the shards'
// exports together write the lake the whole folder (and the one database) writes; forget finds a
// conversation in whichever file holds it; alert fires per file; bad input exits 2 in one line.
import { DuckDBInstance } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDataset, startSimulator, type Simulator } from '../src/simulator/index.js';
import { shardOf } from '../src/shared/shards.js';
import { Database } from '../src/store/database.js';
import { spaceDbPath } from '../src/store/space-files.js';
import { runCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('db-dir');
const DAY = 86_400_000;
const SLUGS = ['space-01', 'space-02', 'space-03'];

let sims: Simulator[];
let root: string;
let dir: string;
let oneDb: string;
let env: NodeJS.ProcessEnv;

/** The config of the three spaces; `extra[i]` adds lines to the i-th [[space]]. */
function config(extra: string[] = []): string {
  const path = join(fileDir('config'), 'spaces.toml');
  writeFileSync(path, sims.map((sim, i) => `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "KEY_${i}"\nslug = "${sim.space}"\n${extra[i] ?? ''}`).join('\n'));
  return path;
}

beforeAll(async () => {
  const now = new Date();
  // space-01 busy over two days (its yesterday fires the alert below), the others sparse over four weeks
  sims = await Promise.all(
    SLUGS.map((slug, i) =>
      startSimulator({
        rateLimit: 100_000,
        dataset: generateDataset({ seed: 4100 + i, now, spaceSlug: slug, ...(i === 0 ? { conversations: 40, days: 2 } : { conversations: 12 }) }),
      }),
    ),
  );
  root = fileDir();
  dir = join(root, 'spaces');
  oneDb = join(root, 'one.duckdb');
  env = { CONVODUCK_CONFIG: config() };
  sims.forEach((sim, i) => (env[`KEY_${i}`] = sim.apiKey));
  for (const where of [['--db-dir', dir], ['--db', oneDb]]) {
    const synced = await runCli(['sync', ...where], env);
    expect(synced.code, synced.stderr).toBe(0);
  }
}, 120_000);

afterAll(async () => {
  await Promise.all((sims ?? []).map((s) => s.close()));
});

const ownedBy = (count: number, index: number) => SLUGS.filter((s) => shardOf(s, count) === index);
const json = <T>(r: CliResult): T => {
  expect(r.code, r.stderr).not.toBe(2);
  return JSON.parse(r.stdout) as T;
};
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A copy of the synced folder, for a test that changes it. */
function copyOf(label: string): string {
  const copy = join(fileDir(label), 'spaces');
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Every file under `folder` but the manifest, with its bytes' hash. */
function tree(folder: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name !== 'convoduck-export.json') out[relative(folder, p)] = sha(p);
    }
  };
  walk(folder);
  return out;
}

const KEYS = {
  conversations: `id, space, agent_id, outcome, epoch_ms(started_at), duration_sec`,
  transcript_turns: `conversation_id, seq, speaker, text`,
  tool_calls: `conversation_id, seq, tool_id, status`,
  agents: `id, space, name`,
};

/** Per table, every row's key columns as text, sorted: what a lake holds. */
async function lakeRows(lake: string): Promise<Record<string, string[]>> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const [table, keys] of Object.entries(KEYS)) {
      const rows = await conn.runAndReadAll(
        `SELECT concat_ws('|', ${keys}) AS k FROM read_parquet('${join(lake, table)}/**/*.parquet', hive_partitioning = true) ORDER BY k`,
      );
      out[table] = rows.getRowObjectsJson().map((r) => String(r.k));
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

async function count(file: string, sql: string): Promise<number> {
  return Database.with(file, async (db) => Number((await db.all<{ n: bigint }>(sql))[0]!.n), { readOnly: true });
}

interface DirStatusJson {
  dbDir: string;
  shard?: { count: number; index: number; spaces: string[] };
  spaces: { space: string; file: string | null; status: { details: { listed: number } } | null }[];
}

describe('status --db-dir', () => {
  it('shows every space file; a shard shows the spaces shardOf gives it, and a pin in the config wins', async () => {
    const all = json<DirStatusJson>(await runCli(['status', '--db-dir', dir, '--json']));
    expect(all.shard).toBeUndefined();
    expect(all.spaces.map((s) => [s.space, s.file, s.status!.details.listed])).toEqual(
      sims.map((sim) => [sim.space, spaceDbPath(dir, sim.space), sim.dataset.conversations.length]),
    );
    const text = await runCli(['status', '--db-dir', dir]);
    expect(text.code, text.stderr).toBe(0);
    for (const slug of SLUGS) expect(text.stdout).toContain(`── space ${slug} ──`);
    expect(text.stdout).toMatch(new RegExp(`^  ${SLUGS.length} spaces: ${SLUGS.length} synced$`, 'm'));
    expect((all as unknown as { tally: unknown }).tally).toEqual({ spaces: SLUGS.length, synced: SLUGS.length });

    expect(ownedBy(2, 0).length * ownedBy(2, 1).length, 'both shards own a space').toBeGreaterThan(0);
    for (const index of [0, 1]) {
      const shard = json<DirStatusJson>(await runCli(['status', '--db-dir', dir, '--shard-count', '2', '--json'], { JOB_COMPLETION_INDEX: String(index) }));
      expect(shard.shard).toEqual({ count: 2, index, spaces: ownedBy(2, index) });
      expect(shard.spaces.map((s) => s.space)).toEqual(ownedBy(2, index));
      const human = await runCli(['status', '--db-dir', dir, '--shard-count', '2', '--shard-index', String(index)]);
      expect(human.stdout).toContain(`shard      ${index} of 2 owns`);
    }
    // space-01 falls to shard 1 by its hash; pinned to shard 0 it is shard 0's
    expect(shardOf('space-01', 2)).toBe(1);
    const pinned = config(['shard = 0\n']);
    const zero = json<DirStatusJson>(await runCli(['status', '--db-dir', dir, '--config', pinned, '--shard-count', '2', '--shard-index', '0', '--json']));
    expect(zero.shard!.spaces).toEqual(['space-01', ...ownedBy(2, 0)].sort());
  }, 60_000);

  it('lists the config’s spaces never synced beside the files, and previews shard ownership over an empty folder', async () => {
    const cfg = join(fileDir('never-synced'), 'spaces.toml');
    const slugs = [...SLUGS, 'space-04'];
    writeFileSync(cfg, slugs.map((slug) => `[[space]]\nbase_url = "http://127.0.0.1:9/api/v1"\napi_key_env = "NO_KEY_${slug.slice(-2)}"\nslug = "${slug}"\n`).join('\n'));
    const all = json<DirStatusJson>(await runCli(['status', '--db-dir', dir, '--config', cfg, '--json']));
    expect(all.spaces.map((s) => [s.space, s.file === null, s.status === null])).toEqual([...SLUGS.map((s) => [s, false, false]), ['space-04', true, true]]);
    const text = await runCli(['status', '--db-dir', dir, '--config', cfg]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^db dir .*\(4 spaces shown\)$/m);
    expect(text.stdout).toMatch(/^ {2}space-04 +- +no file yet +- +0 +0 +0 +0$/m);

    const empty = fileDir('preview');
    for (const index of [0, 1]) {
      const res = await runCli(['status', '--db-dir', empty, '--config', cfg, '--shard-count', '2', '--shard-index', String(index), '--json']);
      expect(res.code, res.stderr).toBe(0);
      const owned = slugs.filter((slug) => shardOf(slug, 2) === index);
      expect(json<DirStatusJson>(res).shard).toEqual({ count: 2, index, spaces: owned });
    }
  }, 60_000);
});

describe('check with shards', () => {
  it('asks only the shard’s spaces and says which; with --db-dir names each space’s file', async () => {
    const before = sims.map((s) => s.requestLog.length);
    const res = await runCli(['check', '--db-dir', dir, '--shard-count', '2', '--shard-index', '1', '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    const out = json<{ shard: { spaces: string[] }; spaces: { space: string; file: string }[] }>(res);
    expect(out.shard.spaces).toEqual(ownedBy(2, 1));
    expect(out.spaces.map((s) => [s.space, s.file])).toEqual(ownedBy(2, 1).map((slug) => [slug, spaceDbPath(dir, slug)]));
    const asked = sims.filter((s, i) => s.requestLog.length > before[i]!).map((s) => s.space);
    expect(asked).toEqual(ownedBy(2, 1));
  }, 60_000);
});

describe('export --db-dir', () => {
  it('each shard writes only its spaces; together they write what the whole folder and one database write', async () => {
    const lakes = fileDir('lakes');
    const sharded = join(lakes, 'sharded');
    const spaceDirs = () => readdirSync(join(sharded, 'conversations')).sort();
    for (const index of [0, 1]) {
      const res = await runCli(['export', '--db-dir', dir, '--out', sharded, '--partition-by', 'space,day', '--shard-count', '2', '--shard-index', String(index), '--json']);
      expect(res.code, res.stderr).toBe(0);
      const out = json<{ shard: { spaces: string[] }; spaces: { space: string }[] }>(res);
      expect(out.shard.spaces).toEqual(ownedBy(2, index));
      expect(out.spaces.map((s) => s.space)).toEqual(ownedBy(2, index));
      const written = index === 0 ? ownedBy(2, 0) : SLUGS;
      expect(spaceDirs()).toEqual(written.map((s) => `space=${s}`));
    }
    const whole = join(lakes, 'whole');
    const one = join(lakes, 'one');
    for (const args of [['--db-dir', dir, '--out', whole], ['--db', oneDb, '--out', one]]) {
      const res = await runCli(['export', ...args, '--partition-by', 'space,day']);
      expect(res.code, res.stderr).toBe(0);
    }
    expect(tree(sharded)).toEqual(tree(whole));
    const rows = await lakeRows(sharded);
    expect(rows.conversations).toHaveLength(sims.reduce((n, s) => n + s.dataset.conversations.length, 0));
    expect(rows).toEqual(await lakeRows(one));
  }, 90_000);
});

describe('forget --db-dir', () => {
  it('erases each conversation from the file that holds it, the others untouched; an id no file holds changes nothing', async () => {
    const copy = copyOf('forget');
    const files = SLUGS.map((s) => spaceDbPath(copy, s));
    const [a, b] = [sims[1]!, sims[2]!].map((s) => s.dataset.conversations.find((c) => c.ended_at !== null)!.id);
    const hashes = files.map(sha);
    const unknown = await runCli(['forget', '--db-dir', copy, '--id', a!, '--id', 'no-such-conversation']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^convoduck: forget: no conversation "no-such-conversation" in any space file of .*; nothing was erased\n$/);
    expect(files.map(sha)).toEqual(hashes);

    const lake = join(fileDir('forget-lake'), 'lake');
    const exported = await runCli(['export', '--db-dir', copy, '--out', lake, '--partition-by', 'space,day']);
    expect(exported.code, exported.stderr).toBe(0);
    const before = (await lakeRows(lake)).conversations!;
    expect(before.filter((k) => k.startsWith(`${a}|`) || k.startsWith(`${b}|`))).toHaveLength(2);

    const res = await runCli(['forget', '--db-dir', copy, '--id', a!, '--id', b!, '--out', lake]);
    expect(res.code, res.stderr).toBe(0);
    // the lake lost exactly those two, each rewritten from the file that held it
    expect((await lakeRows(lake)).conversations).toEqual(before.filter((k) => !k.startsWith(`${a}|`) && !k.startsWith(`${b}|`)));
    expect(res.stdout.split('\n').filter(Boolean).map((l) => l.split('\t').slice(0, 2))).toEqual(
      expect.arrayContaining([[a, 'space-02'], [b, 'space-03']]),
    );
    for (const [i, id] of [[1, a], [2, b]] as const) {
      expect(await count(files[i]!, `SELECT count(*) AS n FROM conversations WHERE id = '${id}'`)).toBe(0);
      expect(await count(files[i]!, `SELECT count(*) AS n FROM erasures WHERE id = '${id}'`)).toBe(1);
    }
    expect(sha(files[0]!), 'space-01 holds neither: its file is as it was').toBe(hashes[0]);
  }, 60_000);
});

describe('alert --db-dir', () => {
  it('judges each file on its own, keeps the state in it, and exits 10 when one fires', async () => {
    const copy = copyOf('alert');
    const today = Date.now() - (Date.now() % DAY);
    const yesterday = sims.map((s) => s.dataset.records.filter((r) => r.startMs >= today - DAY && r.startMs < today).length);
    const quietest = Math.max(...yesterday.slice(1));
    expect(yesterday[0], 'the busy space had more conversations yesterday').toBeGreaterThan(quietest + 5);
    const rules = (bound: number) => {
      const path = join(fileDir('rules'), 'rules.toml');
      writeFileSync(path, `[[rule]]\nname = "busy-day"\nreport = "outcomes"\ncolumn = "conversations"\ngroup = ["space"]\nperiod = "day"\nkind = "threshold"\nwarn_above = ${bound}\n`);
      return path;
    };
    const quiet = await runCli(['alert', '--db-dir', copy, '--rules', rules(yesterday[0]!)]);
    expect(quiet.code, quiet.stderr).toBe(0);

    const res = await runCli(['alert', '--db-dir', copy, '--rules', rules(quietest), '--json']);
    expect(res.code, res.stderr).toBe(10);
    const out = json<{ spaces: { space: string; firing: unknown[] }[] }>(res);
    expect(out.spaces.map((s) => [s.space, s.firing.length])).toEqual([['space-01', 1], ['space-02', 0], ['space-03', 0]]);
    expect(res.stderr).toMatch(/^space space-01: FIRING warn busy-day: .*\bspace-01\b/);
    const firing = await Promise.all(SLUGS.map((s) => count(spaceDbPath(copy, s), `SELECT count(*) AS n FROM alert_states WHERE resolved_at IS NULL`)));
    expect(firing).toEqual([1, 0, 0]);
  }, 60_000);
});

describe('rebuild --db-dir', () => {
  it('rebuilds every space file', async () => {
    const copy = copyOf('rebuild');
    const res = await runCli(['rebuild', '--db-dir', copy]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr.match(/^rebuilt .*\.duckdb in /gm)).toHaveLength(3);
    for (const sim of sims) expect(await count(spaceDbPath(copy, sim.space), 'SELECT count(*) AS n FROM conversations')).toBe(sim.dataset.conversations.length);
  }, 60_000);
});

describe('bad input over --db-dir', () => {
  it('one line, exit 2, nothing written', async () => {
    const empty = fileDir('empty');
    const lake = join(fileDir('bad'), 'lake');
    const cases: [string[], RegExp][] = [
      [['status', '--db-dir', join(empty, 'missing')], /does not exist/],
      [['status', '--db-dir', empty], /holds no space file/],
      [['status', '--db-dir', empty, '--shard-count', '2', '--shard-index', '0'], /holds no space file yet — add --config FILE/],
      [['export', '--db-dir', empty, '--out', lake, '--partition-by', 'space'], /holds no space file/],
      [['forget', '--db-dir', empty, '--id', 'x'], /holds no space file/],
      [['alert', '--db-dir', empty, '--rules', join(empty, 'r.toml')], /holds no space file/],
      [['rebuild', '--db-dir', empty], /holds no space file/],
      [['status', '--db', oneDb, '--db-dir', dir], /--db and --db-dir both given/],
      [['export', '--db-dir', dir, '--out', lake, '--partition-by', 'day'], /add --partition-by space/],
      [['status', '--db', oneDb, '--shard-count', '2', '--shard-index', '0'], /add --db-dir/],
      [['status', '--db-dir', dir, '--shard-count', '2', '--shard-index', '2'], /not a shard of 0 … 1/],
      [['status', '--db-dir', dir, '--shard-count', '2'], /without a shard index/],
      [['status', '--db-dir', dir, '--space', 'space-09'], /no space "space-09" in --db-dir .* known: space-01, space-02, space-03/],
      [['check', '--shard-count', '2', '--shard-index', '0'], /give a config file/],
    ];
    for (const [args, message] of cases) {
      const res = await runCli(args);
      expect(res.code, `${args.join(' ')}: ${res.stderr}`).toBe(2);
      expect(res.stderr, args.join(' ')).toMatch(/^convoduck: [^\n]+\n$/);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
    expect(existsSync(lake)).toBe(false);
  }, 60_000);
});
