// `sync --config`: three simulated spaces (different seeds, keys, slugs and sizes) crawled at once
// into one database over real HTTP: every space exact row by row; a refused key skips its space
// only (exit 3, one line naming it, the key nowhere); a second run incremental per space;
// --space limits a run; a wrong slug stores nothing. (Each key's own budget: spaces-budgets.test.ts.)
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import type { RequestLogEntry, Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { CLI, runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys, expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb, tempDir } = scratch('spaces');
/** Seeds whose spaces have three different slugs (nordwind-service, soylent-help, initech-support). */
const SEEDS = [141, 142, 143] as const;
const SIZES = [150, 100, 70] as const;

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });
const own = (sim: Simulator, from = 0): RequestLogEntry[] => sim.requestLog.slice(from).filter((r) => r.client === 'key');
const ofKind = (entries: RequestLogEntry[], kind: string): number => entries.filter((r) => r.kind === kind).length;

interface Job {
  sims: Simulator[];
  config: string;
  env: NodeJS.ProcessEnv;
  dbPath: string;
}

/** A config file for `sims` (one [[space]] each, keys in variables); `withSlugs` names each slug. */
function job(sims: Simulator[], options: { withSlugs?: boolean; extra?: string[] } = {}): Job {
  const dir = tempDir();
  const config = join(dir, 'spaces.toml');
  const tables = sims.map(
    (sim, i) =>
      `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "SPACE_${i}_KEY"\n` +
      (options.withSlugs ? `slug = "${sim.space}"\n` : '') +
      (options.extra?.[i] ?? ''),
  );
  writeFileSync(config, tables.join('\n'));
  const dbPath = tempDb();
  const env: NodeJS.ProcessEnv = { CONVODUCK_CONFIG: config, CONVODUCK_DB: dbPath };
  sims.forEach((sim, i) => (env[`SPACE_${i}_KEY`] = sim.apiKey));
  return { sims, config, env, dbPath };
}

async function threeSpaces(extra: { rateLimit?: number; windowMs?: number } = {}): Promise<Simulator[]> {
  const sims = await Promise.all(SEEDS.map((seed, i) => simulator({ seed, conversations: SIZES[i], rateLimit: 100_000, ...extra })));
  expect(new Set(sims.map((s) => s.space)).size).toBe(3);
  expect(new Set(sims.map((s) => s.apiKey)).size).toBe(3);
  return sims;
}

async function rows<T extends Record<string, unknown>>(dbPath: string, sql: string): Promise<T[]> {
  const db = await Database.open(dbPath, { readOnly: true });
  try {
    return await db.all<T>(sql);
  } finally {
    db.close();
  }
}

interface JsonSummary {
  status: string;
  exitCode: number;
  error: string | null;
  spaces: { space: string; status: string; error: string | null; detailsFetched?: number; conversationsListed?: number; runId?: number }[];
}

describe('sync --config: many spaces into one database', () => {
  it('crawls every space at once, each exact row by row, each with its own run and watermark', async () => {
    const sims = await threeSpaces();
    const { env, dbPath } = job(sims);
    const run = await runCli(['sync', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as JsonSummary;
    expect(out.status).toBe('ok');
    expect(out.error).toBeNull();
    expect(out.spaces.map((s) => [s.space, s.status, s.conversationsListed])).toEqual(sims.map((sim, i) => [sim.space, 'ok', SIZES[i]]));

    for (const sim of sims) await expectStoreMatches(dbPath, everything(sim), { space: sim.space });
    const bySpace = await rows<{ space: string; n: number }>(dbPath, `SELECT space, count(*)::INTEGER AS n FROM conversations GROUP BY space ORDER BY space`);
    expect(bySpace).toEqual(sims.map((s, i) => ({ space: s.space, n: SIZES[i] })).sort((a, b) => a.space.localeCompare(b.space)));
    const agents = await rows<{ space: string; n: number }>(dbPath, `SELECT space, count(*)::INTEGER AS n FROM agents GROUP BY space ORDER BY space`);
    expect(agents).toEqual(sims.map((s) => ({ space: s.space, n: s.dataset.agents.length })).sort((a, b) => a.space.localeCompare(b.space)));

    const runs = await rows<{ space: string; status: string; window_to: Date }>(dbPath, `SELECT space, status, window_to FROM sync_runs ORDER BY space`);
    expect(runs.map((r) => [r.space, r.status])).toEqual(sims.map((s) => [s.space, 'ok']).sort());
    const marks = await rows<{ space: string; listed_to: Date }>(dbPath, `SELECT space, listed_to FROM listing_watermarks ORDER BY space`);
    expect(marks.map((m) => [m.space, m.listed_to.getTime()])).toEqual(runs.map((r) => [r.space, r.window_to.getTime()]));
    // every request of a space went to its own server with its own key
    for (const sim of sims) expect(own(sim).every((r) => r.status === 200)).toBe(true);
  }, 300_000);

  it('a second run is incremental per space: only the new conversations of the space that has them', async () => {
    const sims = await threeSpaces();
    const { env, dbPath } = job(sims);
    const first = await runCli(['sync'], env);
    expect(first.code, first.stderr).toBe(0);
    const logged = sims.map((s) => s.requestLog.length);
    for (const sim of sims) expect(ofKind(own(sim), 'conversation_detail')).toBe(sim.dataset.conversations.length);

    // what a later run fetches again: each space's conversations still in progress
    const open = sims.map((sim) => sim.dataset.conversations.filter((c) => sim.dataset.detail(c.id)!.ended_at === null).length);
    expect(open.some((n) => n > 0)).toBe(true);
    // three new finished conversations in the second space only
    sims[1]!.setOptions({ arrivalLagMs: 60_000 });
    sims[1]!.addConversations(3, { open: false });
    const second = await runCli(['sync', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    const out = JSON.parse(second.stdout) as JsonSummary;
    const expected = open.map((n, i) => n + (i === 1 ? 3 : 0));
    expect(out.spaces.map((s) => s.detailsFetched)).toEqual(expected);
    sims.forEach((sim, i) => {
      const again = own(sim, logged[i]);
      expect(ofKind(again, 'conversation_detail'), sim.space).toBe(expected[i]);
      // the overlap window holds a page at most, against the whole history the first time
      expect(ofKind(again, 'conversation_list'), sim.space).toBe(1);
    });
    for (const sim of sims) await expectStoreMatches(dbPath, everything(sim), { space: sim.space });
    const runs = await rows<{ space: string; window_from: Date | null }>(dbPath, `SELECT space, window_from FROM sync_runs ORDER BY run_id`);
    expect(runs).toHaveLength(6);
    // each space's second window starts an hour before its own first window's end
    for (const r of runs.slice(3)) expect(r.window_from, r.space).not.toBeNull();
  }, 300_000);

  it('a refused key skips its space only: the others exact, exit 3, one line naming the space, the key nowhere', async () => {
    const sims = await threeSpaces();
    sims[1]!.setOptions({ revokeKeyAfter: 0 });
    const { env, dbPath } = job(sims, { withSlugs: true });
    const run = await runCli(['sync', '--json'], env);
    expect(run.code, run.stderr).toBe(3);
    const refusal = run.stderr.split('\n').filter((l) => l.startsWith('convoduck: '));
    expect(refusal).toEqual([
      `convoduck: space ${sims[1]!.space}: the API refused its key (401 unauthenticated): check environment variable SPACE_1_KEY (config ${env.CONVODUCK_CONFIG} line 8) — skipped; the other spaces ran`,
    ]);
    const out = JSON.parse(run.stdout) as JsonSummary;
    expect(out.status).toBe('refused');
    expect(out.exitCode).toBe(3);
    expect(out.spaces.map((s) => [s.space, s.status])).toEqual([
      [sims[0]!.space, 'ok'],
      [sims[1]!.space, 'refused'],
      [sims[2]!.space, 'ok'],
    ]);
    await expectStoreMatches(dbPath, everything(sims[0]!), { space: sims[0]!.space });
    await expectStoreMatches(dbPath, everything(sims[2]!), { space: sims[2]!.space });
    const spaces = await rows<{ space: string }>(dbPath, `SELECT DISTINCT space FROM sync_runs UNION SELECT DISTINCT space FROM raw_listed_conversations ORDER BY 1`);
    expect(spaces.map((s) => s.space)).toEqual([sims[0]!.space, sims[2]!.space].sort());
    for (const sim of sims) {
      expect(run.stdout + run.stderr).not.toContain(sim.apiKey);
      expect(readFileSync(dbPath).includes(sim.apiKey)).toBe(false);
    }
  }, 300_000);

  it('a key revoked in the middle of its crawl: that space keeps what it fetched, the others finish exact, exit 3', async () => {
    const sims = await threeSpaces();
    sims[0]!.setOptions({ revokeKeyAfter: 60 });
    const { env, dbPath } = job(sims);
    const run = await runCli(['sync'], env);
    expect(run.code, run.stderr).toBe(3);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('convoduck: '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^convoduck: space ${sims[0]!.space}: the API refused its key \\(401 unauthenticated\\)`));
    await expectStoreMatches(dbPath, everything(sims[1]!), { space: sims[1]!.space });
    await expectStoreMatches(dbPath, everything(sims[2]!), { space: sims[2]!.space });
    const kept = await rows<{ n: number }>(dbPath, `SELECT count(*)::INTEGER AS n FROM raw_conversations WHERE space = '${sims[0]!.space}'`);
    expect(kept[0]!.n).toBeGreaterThan(0);
    expect(kept[0]!.n).toBeLessThan(SIZES[0]);
    const runs = await rows<{ space: string; status: string }>(dbPath, `SELECT space, status FROM sync_runs ORDER BY space`);
    expect(runs).toEqual(sims.map((s, i) => ({ space: s.space, status: i === 0 ? 'failed' : 'ok' })).sort((a, b) => a.space.localeCompare(b.space)));
    expect(run.stderr).not.toContain(sims[0]!.apiKey);

    // with the key working again, the next run ends exact in every space
    sims[0]!.setOptions({ revokeKeyAfter: null });
    const healed = await runCli(['sync'], env);
    expect(healed.code, healed.stderr).toBe(0);
    for (const sim of sims) await expectStoreMatches(dbPath, everything(sim), { space: sim.space });
  }, 300_000);

  it('--space limits a run to some spaces: the others are not asked anything; an unknown slug is one line, exit 2', async () => {
    const sims = await threeSpaces();
    const { env, dbPath } = job(sims, { withSlugs: true });
    const unknown = await runCli(['sync', '--space', 'nowhere'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([`convoduck: no space "nowhere" in this job — known: ${sims.map((s) => s.space).sort().join(', ')}`]);
    expect(existsSync(dbPath)).toBe(false);
    for (const sim of sims) expect(own(sim)).toHaveLength(0);

    const run = await runCli(['sync', '--space', sims[0]!.space, '--space', sims[2]!.space], env);
    expect(run.code, run.stderr).toBe(0);
    expect(own(sims[1]!)).toHaveLength(0);
    await expectStoreMatches(dbPath, everything(sims[0]!), { space: sims[0]!.space });
    await expectStoreMatches(dbPath, everything(sims[2]!), { space: sims[2]!.space });
    const spaces = await rows<{ space: string }>(dbPath, `SELECT DISTINCT space FROM conversations ORDER BY 1`);
    expect(spaces.map((s) => s.space)).toEqual([sims[0]!.space, sims[2]!.space].sort());
  }, 300_000);

  it('a slug the key does not belong to, or the same space twice: one line, exit 2, nothing stored', async () => {
    const sims = await threeSpaces();
    const wrong = job(sims, { extra: ['', 'slug = "acme-prod"\n', ''] });
    const mismatch = await runCli(['sync'], wrong.env);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr.trim().split('\n')).toEqual([
      `convoduck: space acme-prod: the key belongs to space ${sims[1]!.space}, not acme-prod — fix the slug (or the key) in the config`,
    ]);
    expect(existsSync(wrong.dbPath)).toBe(false);
    // with one file per space, the space's line names it once
    const oneWrong = job([sims[1]!], { extra: ['slug = "acme-prod"\n'] });
    const inDir = await runCli(['sync', '--db-dir', join(tempDir(), 'spaces')], oneWrong.env);
    expect(inDir.code).toBe(2);
    expect(inDir.stderr).toContain(`convoduck: space acme-prod: the key belongs to space ${sims[1]!.space}, not acme-prod — fix the slug (or the key) in the config (nothing stored for this space)\n`);
    // only GET /spaces was asked of any server
    for (const sim of sims) expect(own(sim).every((r) => r.kind === 'spaces')).toBe(true);

    const twice = job([sims[0]!, sims[1]!, sims[0]!]);
    twice.env.SPACE_2_KEY = sims[0]!.apiKey;
    const duplicate = await runCli(['sync'], twice.env);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr.trim().split('\n')).toEqual([
      `convoduck: config ${twice.config} line 9: [[space]] #3 holds the same key as [[space]] #1 (line 1) at the same base_url — list each space once`,
    ]);
    expect(existsSync(twice.dbPath)).toBe(false);
  }, 300_000);

  it('a server that cannot be reached is reported and skipped; the others finish', async () => {
    const sims = await threeSpaces();
    const down = await simulator({ seed: 144, conversations: 10 });
    const downUrl = down.baseUrl;
    await down.close();
    const dbPath = tempDb();
    const summary = await syncSpaces({
      dbPath,
      spaces: [
        { label: 'space one', baseUrl: sims[0]!.baseUrl, apiKey: sims[0]!.apiKey },
        { label: '[[space]] #2 (line 4)', baseUrl: downUrl, apiKey: 'np_down', maxRetries: 1 },
        { label: 'space three', baseUrl: sims[2]!.baseUrl, apiKey: sims[2]!.apiKey },
      ],
    });
    expect(summary.spaces.map((s) => [s.space, s.status])).toEqual([
      [sims[0]!.space, 'ok'],
      ['[[space]] #2 (line 4)', 'unreachable'],
      [sims[2]!.space, 'ok'],
    ]);
    await expectStoreMatches(dbPath, everything(sims[0]!), { space: sims[0]!.space });
    await expectStoreMatches(dbPath, everything(sims[2]!), { space: sims[2]!.space });
    const db = await Database.open(dbPath, { readOnly: true });
    try {
      await expectNoDuplicateKeys(db);
    } finally {
      db.close();
    }
  }, 300_000);
});

describe('settings and upgrades', () => {
  it('a key written in the config: one line naming the file and line, exit 2, nothing asked or stored', async () => {
    const sims = await threeSpaces();
    const written = job(sims, { extra: ['', 'api_key = "np_written_in_the_file_1234"\n', ''] });
    const refused = await runCli(['sync'], written.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `convoduck: config ${written.config} line 8: api_key is refused: keys never go in the config file — name an environment variable with api_key_env, or a file with api_key_file\n`,
    );
    expect(refused.stderr + refused.stdout).not.toContain('np_written_in_the_file');
    expect(existsSync(written.dbPath)).toBe(false);
    for (const sim of sims) expect(own(sim)).toHaveLength(0);
  });

  it('a key that cannot be read (variable not set, file missing) skips its space only, like a refused one: exit 3, one line, the others exact', async () => {
    const sims = await Promise.all(SEEDS.slice(0, 2).map((seed, i) => simulator({ seed, conversations: SIZES[i], rateLimit: 100_000 })));
    const unset = job(sims, { withSlugs: true });
    delete unset.env.SPACE_1_KEY;
    const run = await runCli(['sync', '--json'], unset.env);
    expect(run.code, run.stderr).toBe(3);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('convoduck: '));
    expect(lines).toEqual([
      `convoduck: config ${unset.config} line 8: environment variable SPACE_1_KEY (space ${sims[1]!.space}) is not set — export it with the space's API key (this space skipped; the others ran)`,
    ]);
    const out = JSON.parse(run.stdout) as JsonSummary;
    expect(out).toMatchObject({ status: 'refused', exitCode: 3 });
    expect(out.spaces.map((s) => [s.space, s.status])).toEqual([
      [sims[0]!.space, 'ok'],
      [sims[1]!.space, 'refused'],
    ]);
    await expectStoreMatches(unset.dbPath, everything(sims[0]!), { space: sims[0]!.space });
    expect(own(sims[1]!)).toHaveLength(0);
    expect(run.stdout + run.stderr).not.toContain(sims[0]!.apiKey);

    // a key file that is not there: the same, without slugs (the space named by its table)
    const dir = tempDir();
    const config = join(dir, 'spaces.toml');
    writeFileSync(
      config,
      `[[space]]\nbase_url = "${sims[0]!.baseUrl}"\napi_key_env = "FIRST_KEY"\n\n[[space]]\nbase_url = "${sims[1]!.baseUrl}"\napi_key_file = "${join(dir, 'missing.key')}"\n`,
    );
    const dbPath = tempDb();
    const second = await runCli(['sync'], { CONVODUCK_CONFIG: config, CONVODUCK_DB: dbPath, FIRST_KEY: sims[0]!.apiKey });
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr.split('\n').filter((l) => l.startsWith('convoduck: '))).toEqual([
      `convoduck: config ${config} line 7: cannot read the key file ${join(dir, 'missing.key')} of [[space]] #2 (line 5) (ENOENT) — make it readable, holding the key (this space skipped; the others ran)`,
    ]);
    await expectStoreMatches(dbPath, everything(sims[0]!), { space: sims[0]!.space });
    expect(own(sims[1]!)).toHaveLength(0);
  }, 300_000);

  it('a database with one watermark (schema 3) gives it to the space its rows carry; the next run is incremental', async () => {
    const sim = await simulator({ seed: 141, conversations: 150, rateLimit: 100_000 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    // the database as schema 3 kept it: one listing_watermark in convoduck_meta
    const windowTo = await Database.with(dbPath, async (db) => {
      const run = await db.one<{ window_to: Date }>(`SELECT window_to FROM sync_runs`);
      await db.run(`DROP TABLE listing_watermarks`);
      await db.run(`INSERT INTO convoduck_meta VALUES ('listing_watermark', ?)`, [run!.window_to.toISOString()]);
      await db.run(`UPDATE convoduck_meta SET value = '3' WHERE key = 'schema_version'`);
      return run!.window_to;
    });
    const marks = await rows<{ space: string; listed_to: Date }>(dbPath, `SELECT space, listed_to FROM listing_watermarks`);
    expect(marks.map((m) => [m.space, m.listed_to.getTime()])).toEqual([[sim.space, windowTo.getTime()]]);
    expect(await rows(dbPath, `SELECT * FROM convoduck_meta WHERE key = 'listing_watermark'`)).toEqual([]);
    const logged = sim.requestLog.length;
    expect((await runCli(['sync'], env)).code).toBe(0);
    expect(ofKind(own(sim, logged), 'conversation_list')).toBe(1);
  }, 300_000);
});

describe('the README’s multi-space config and cron line', () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url));
  /** The fenced block right after `<!-- recipe:NAME -->` in the README. */
  function recipe(name: string): string {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const marker = `<!-- recipe:${name} -->`;
    expect(text.split(marker)).toHaveLength(2);
    return new RegExp(`${marker}\\n\`\`\`[^\\n]*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(text)![1]! + '\n';
  }

  it('runs as written, cron’s bare environment and all: both spaces exact, run after run', async () => {
    // the second space's max_rpm (30 a real minute) leaves room for a few conversations per run
    const sims = await Promise.all([simulator({ seed: 141, conversations: 90, rateLimit: 100_000 }), simulator({ seed: 142, conversations: 8, rateLimit: 100_000 })]);
    const root = tempDir();
    const [bin, home, work, etc] = ['bin', 'home', 'srv', 'etc'].map((d) => join(root, d)) as [string, string, string, string];
    for (const d of [bin, home, work, etc]) mkdirSync(d);
    chmodSync(CLI, 0o755);
    symlinkSync(CLI, join(bin, 'convoduck'));

    // the config as written: each placeholder host in turn becomes one simulator, the slug the first one's
    const HOST = 'https://<your-host>/api/v1';
    let config = recipe('spaces-config');
    expect(config.split(HOST)).toHaveLength(3);
    for (const sim of sims) config = config.replace(HOST, sim.baseUrl);
    config = config.replace('"acme-prod"', `"${sims[0]!.space}"`);
    for (const [name, sim] of [['acme-prod', sims[0]!], ['acme-staging', sims[1]!]] as const) {
      const key = join(etc, `${name}.key`);
      writeFileSync(key, `${sim.apiKey}\n`, { mode: 0o600 });
      config = config.replace(`/etc/convoduck/${name}.key`, key);
    }
    const configPath = join(etc, 'spaces.toml');
    writeFileSync(configPath, config);

    const line = recipe('cron-spaces').trim();
    const command = /^(?:\S+\s+){5}(.*)$/.exec(line)![1]!
      .replace('/srv/convoduck', work)
      .replace('/etc/convoduck/spaces.toml', configPath)
      .replace('/usr/local/bin', bin);
    expect(command).not.toContain('<your-host>');
    for (const run of [1, 2]) {
      const env = ['PATH=/usr/bin:/bin', `HOME=${home}`, 'SHELL=/bin/sh', 'LOGNAME=convoduck'];
      const child = spawn('/usr/bin/env', ['-i', ...env, '/bin/sh', '-c', command], { cwd: home, stdio: 'ignore' });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, readFileSync(join(work, 'sync.log'), 'utf8')).toBe(0);
      const summaries = readFileSync(join(work, 'sync.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JsonSummary);
      expect(summaries).toHaveLength(run);
      expect(summaries.at(-1)!.spaces.map((s) => [s.space, s.status])).toEqual(sims.map((sim) => [sim.space, 'ok']));
      for (const sim of sims) await expectStoreMatches(join(work, 'convoduck.duckdb'), everything(sim), { space: sim.space });
      expect(existsSync(join(work, 'reports', 'agent_leaderboard.csv'))).toBe(true);
    }
  }, 300_000);
});
