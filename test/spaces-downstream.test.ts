// Everything that reads a database of several spaces: `status` shows each space, and `status`,
// `query`, `export` and `report` take --space SLUG (repeatable) to read only those spaces' rows;
// an unknown slug is one line, exit 2, listing the known ones. The database: three simulated
// spaces crawled over real HTTP in one run.
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('spaces-downstream');

const SEEDS = [141, 142, 143] as const;
const SIZES = [90, 70, 50] as const;

let sims: Simulator[] = [];
let dir: string;
let dbPath: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sims = await Promise.all(SEEDS.map((seed, i) => startSimulator({ seed, conversations: SIZES[i], rateLimit: 100_000 })));
  dir = fileDir();
  dbPath = join(dir, 'spaces.duckdb');
  env = { CONVODUCK_DB: dbPath };
  const summary = await syncSpaces({
    dbPath,
    spaces: sims.map((sim, i) => ({ label: `space ${i}`, baseUrl: sim.baseUrl, apiKey: sim.apiKey })),
  });
  expect(summary.spaces.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
}, 300_000);

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

const slugs = () => sims.map((s) => s.space);
const sorted = (values: string[]) => [...values].sort();
/** What the simulator holds in a space: its conversations, their turns, and those still open. */
function expected(sim: Simulator) {
  const details = sim.dataset.conversations.map((c) => sim.dataset.detail(c.id)!);
  return {
    conversations: details.length,
    turns: details.reduce((n, d) => n + (d.transcript?.length ?? 0), 0),
    open: details.filter((d) => d.ended_at === null).length,
  };
}

function unknownLine(slug: string): string {
  return `convoduck: no space "${slug}" in this database — known: ${sorted(slugs()).join(', ')}\n`;
}

describe('status', () => {
  it('shows each space: its watermark, last run and pending details', async () => {
    const res = await runCli(['status', '--json'], env);
    expect(res.code, res.stderr).toBe(0);
    const s = JSON.parse(res.stdout) as {
      watermark: string;
      spaces: { space: string; watermark: string | null; lastRun: { runId: number; status: string } | null; listed: number; stored: number; pending: number; open: number }[];
      runs: { runId: number; space: string; windowTo: string }[];
    };
    expect(s.spaces.map((p) => p.space)).toEqual(sorted(slugs()));
    for (const sim of sims) {
      const p = s.spaces.find((x) => x.space === sim.space)!;
      const run = s.runs.find((r) => r.space === sim.space)!;
      expect(p).toEqual({
        space: sim.space,
        watermark: run.windowTo,
        lastRun: expect.objectContaining({ runId: run.runId, status: 'ok', stale: false }),
        listed: expected(sim).conversations,
        stored: expected(sim).conversations,
        pending: 0,
        open: expected(sim).open,
      });
    }
    // every space listed up to the earliest of their watermarks
    expect(s.watermark).toBe(sorted(s.spaces.map((p) => p.watermark!))[0]);

    const text = await runCli(['status'], env);
    expect(text.stdout).toMatch(/^spaces {5}3$/m);
    // under the spaces table, their tally (as check and sync end with)
    expect(text.stdout).toMatch(/^ {2}3 spaces: 3 synced$/m);
    expect((JSON.parse(res.stdout) as { tally: unknown }).tally).toEqual({ spaces: 3, synced: 3 });
    for (const sim of sims) expect(text.stdout).toMatch(new RegExp(`^  ${sim.space}\\s+\\S+Z\\s+\\S+Z \\(run \\d+\\)\\s+ok\\s+${expected(sim).conversations}\\s+${expected(sim).conversations}\\s+0\\s+${expected(sim).open}$`, 'm'));
  });

  it('--space shows only those spaces, as if the database held nothing else', async () => {
    const [a, , c] = sims as [Simulator, Simulator, Simulator];
    const res = await runCli(['status', '--json', '--space', a.space, '--space', c.space], env);
    expect(res.code, res.stderr).toBe(0);
    const s = JSON.parse(res.stdout) as { spaces: { space: string }[]; runs: { space: string }[]; tables: Record<string, number>; details: { listed: number } };
    expect(s.spaces.map((p) => p.space)).toEqual(sorted([a.space, c.space]));
    expect(sorted(s.runs.map((r) => r.space))).toEqual(sorted([a.space, c.space]));
    expect(s.tables.conversations).toBe(expected(a).conversations + expected(c).conversations);
    expect(s.tables.transcript_turns).toBe(expected(a).turns + expected(c).turns);
    expect(s.details.listed).toBe(expected(a).conversations + expected(c).conversations);
  });

  it('an unknown slug: one line listing the known ones, exit 2', async () => {
    const res = await runCli(['status', '--space', 'nowhere'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(unknownLine('nowhere'));
    expect(res.stdout).toBe('');
  });
});

describe('query', () => {
  it('--space: every table holds only those spaces’ rows', async () => {
    const [a, b] = sims as [Simulator, Simulator];
    const sql = `SELECT (SELECT count(*) FROM conversations) AS conversations, (SELECT count(*) FROM main.transcript_turns) AS turns,
                        (SELECT count(DISTINCT space) FROM agents) AS agent_spaces, (SELECT count(*) FROM sync_runs) AS runs`;
    const one = await runCli(['query', '--format', 'json', '--space', b.space, sql], env);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual([{ conversations: expected(b).conversations, turns: expected(b).turns, agent_spaces: 1, runs: 1 }]);
    const two = await runCli(['query', '--format', 'json', '--space', a.space, '--space', b.space, sql], env);
    expect(JSON.parse(two.stdout)).toEqual([
      { conversations: expected(a).conversations + expected(b).conversations, turns: expected(a).turns + expected(b).turns, agent_spaces: 2, runs: 2 },
    ]);
    const all = await runCli(['query', '--format', 'json', sql], env);
    expect(JSON.parse(all.stdout)[0].conversations).toBe(SIZES.reduce((x, y) => x + y, 0));
  });

  it('--space: the view conversations_named holds only those spaces’ rows, each with its agent’s name', async () => {
    const b = sims[1]!;
    const sql = `SELECT count(*) AS n, count(DISTINCT space) AS spaces, count(agent_name) AS named FROM conversations_named`;
    const one = await runCli(['query', '--format', 'json', '--space', b.space, sql], env);
    expect(one.code, one.stderr).toBe(0);
    const n = expected(b).conversations;
    expect(JSON.parse(one.stdout)).toEqual([{ n, spaces: 1, named: n }]);
  });

  it('an unknown slug: one line listing the known ones, exit 2', async () => {
    const res = await runCli(['query', '--space', 'nowhere', 'SELECT 1'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(unknownLine('nowhere'));
  });
});

describe('report', () => {
  /** Runs `report` with --format json into a fresh folder; returns each report's rows. */
  async function reports(args: string[]): Promise<(name: string) => Record<string, unknown>[]> {
    const out = fileDir('reports');
    const res = await runCli(['report', '--format', 'json', '--out', out, ...args], env);
    expect(res.code, res.stderr).toBe(0);
    return (name) => JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as Record<string, unknown>[];
  }
  const spaceOfAgent = () => new Map(sims.flatMap((sim) => sim.dataset.agents.map((a) => [a.id, sim.space] as const)));
  const spaceOfConversation = () => new Map(sims.flatMap((sim) => sim.dataset.conversations.map((c) => [c.id, sim.space] as const)));

  it('every row that belongs to one space carries it; cross-space rows add up over the spaces', async () => {
    const read = await reports([]);
    const agents = spaceOfAgent();
    for (const name of ['agent_leaderboard', 'transfers', 'outcomes', 'durations', 'containment_trend', 'node_funnel', 'drop_off', 'transfer_nodes']) {
      const rows = read(name);
      expect(rows.length, name).toBeGreaterThan(0);
      for (const r of rows) expect(r.space, `${name} ${String(r.agent_id)}`).toBe(agents.get(r.agent_id as string));
    }
    expect(new Set(read('agent_leaderboard').map((r) => r.space))).toEqual(new Set(slugs()));
    const conversations = spaceOfConversation();
    const list = read('conversation_list');
    expect(list).toHaveLength(SIZES.reduce((a, b) => a + b, 0));
    for (const r of list) expect(r.space).toBe(conversations.get(r.id as string));
    for (const r of read('tool_failure_log')) expect(r.space).toBe(conversations.get(r.conversation_id as string));

    // a tool slug in two spaces is two tools: one row each, with that space's calls
    const calls = new Map<string, number>();
    for (const sim of sims) {
      for (const c of sim.dataset.conversations) {
        for (const t of sim.dataset.detail(c.id)!.tool_calls) calls.set(`${sim.space} ${t.slug}`, (calls.get(`${sim.space} ${t.slug}`) ?? 0) + 1);
      }
    }
    const tools = read('tool_failures');
    expect(new Map(tools.map((r) => [`${String(r.space)} ${String(r.slug)}`, Number(r.calls)]))).toEqual(calls);
    expect(new Set(tools.map((r) => r.slug)).size).toBeLessThan(tools.length);

    // the summary and the hourly grid are across spaces
    const [summary] = read('summary');
    expect(summary!.conversations).toBe(SIZES.reduce((a, b) => a + b, 0));
    expect(summary!.space).toBe(sorted(slugs()).join(', '));
    const hourly = read('hourly_volume');
    expect(hourly).toHaveLength(168);
    expect(hourly.reduce((n, r) => n + Number(r.conversations), 0)).toBe(SIZES.reduce((a, b) => a + b, 0));
  });

  it('--space: every report reads only those spaces', async () => {
    const [, b] = sims as [Simulator, Simulator];
    const read = await reports(['--space', b.space]);
    expect(read('conversation_list')).toHaveLength(expected(b).conversations);
    expect(new Set(read('agent_leaderboard').map((r) => r.space))).toEqual(new Set([b.space]));
    expect(read('connection_health').every((r) => r.space === b.space)).toBe(true);
    expect(read('connection_health').filter((r) => r.connection_id !== null)).toHaveLength(b.dataset.connections.length);
    const [summary] = read('summary');
    expect(summary).toMatchObject({ conversations: expected(b).conversations, space: b.space });
  });

  it('an unknown slug, or an --agent of another space: one line, exit 2', async () => {
    const [a, b] = sims as [Simulator, Simulator];
    const out = join(dir, 'refused');
    const unknown = await runCli(['report', '--out', out, '--space', 'nowhere'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(unknownLine('nowhere'));
    const elsewhere = await runCli(['report', '--out', out, '--space', b.space, '--agent', a.dataset.agents[0]!.id], env);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(/^convoduck: --agent ".+" is not an agent in the database/);
  });
});

describe('export', () => {
  /** Rows per space of an exported table, read back as Hive-partitioned Parquet. */
  async function perSpace(out: string, table: string): Promise<Record<string, number>> {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT space, count(*)::INTEGER AS n FROM read_parquet('${join(out, table)}/**/*.parquet', hive_partitioning = true) GROUP BY space ORDER BY space`,
      );
      return Object.fromEntries(reader.getRowObjectsJS().map((r) => [String(r.space), Number(r.n)]));
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  }
  const bySlug = (f: (sim: Simulator) => number) => Object.fromEntries(sorted(slugs()).map((s) => [s, f(sims.find((x) => x.space === s)!)]));
  /** Every file under `path` with its bytes, to see what an export left alone. */
  function snapshot(path: string): Map<string, string> {
    const files = new Map<string, string>();
    for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.set(join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name)).toString('base64'));
    }
    return files;
  }

  it('--partition-by space: every table in a space=<slug>/ directory per space', async () => {
    const out = join(dir, 'by-space');
    const res = await runCli(['export', '--out', out, '--partition-by', 'space'], env);
    expect(res.code, res.stderr).toBe(0);
    for (const table of ['conversations', 'agents', 'tools', 'connections', 'sync_runs']) {
      expect(sorted(readdirSync(join(out, table))), table).toEqual(sorted(slugs()).map((s) => `space=${s}`));
    }
    expect(await perSpace(out, 'conversations')).toEqual(bySlug((sim) => expected(sim).conversations));
    expect(await perSpace(out, 'transcript_turns')).toEqual(bySlug((sim) => expected(sim).turns));
    expect(await perSpace(out, 'agents')).toEqual(bySlug((sim) => sim.dataset.agents.length));
    expect(await perSpace(out, 'sync_runs')).toEqual(bySlug(() => 1));
  });

  it('--partition-by space,day: space, then the day the conversation started', async () => {
    const out = join(dir, 'by-space-day');
    const res = await runCli(['export', '--out', out, '--partition-by', 'space,day'], env);
    expect(res.code, res.stderr).toBe(0);
    for (const sim of sims) {
      const days = new Set(sim.dataset.conversations.map((c) => `day=${new Date(c.started_at).toISOString().slice(0, 10)}`));
      expect(sorted(readdirSync(join(out, 'conversations', `space=${sim.space}`)))).toEqual(sorted([...days]));
    }
    expect(await perSpace(out, 'tool_calls')).toEqual(
      bySlug((sim) => sim.dataset.conversations.reduce((n, c) => n + sim.dataset.detail(c.id)!.tool_calls.length, 0)),
    );
    // dimension tables by space only
    expect(readdirSync(join(out, 'agents', `space=${sims[0]!.space}`)).every((f) => f.endsWith('.parquet'))).toBe(true);
  });

  it('databases exporting their spaces into one location: each replaces only its own spaces', async () => {
    const [a, b, c] = sims as [Simulator, Simulator, Simulator];
    const out = join(dir, 'shared');
    const first = await runCli(['export', '--out', out, '--partition-by', 'space,day', '--space', a.space, '--space', b.space], env);
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['export', '--out', out, '--partition-by', 'space,day', '--space', c.space], env);
    expect(second.code, second.stderr).toBe(0);
    expect(await perSpace(out, 'conversations')).toEqual(bySlug((sim) => expected(sim).conversations));

    // an incremental export of one space rewrites its recent days and nothing of the others
    const others = [...snapshot(out)].filter(([path]) => !path.includes(`space=${a.space}`) && !path.endsWith('.json'));
    const again = await runCli(['export', '--out', out, '--partition-by', 'space,day', '--space', a.space, '--since', '3d'], env);
    expect(again.code, again.stderr).toBe(0);
    const after = snapshot(out);
    for (const [path, bytes] of others) expect(after.get(path), path).toBe(bytes);
    expect(await perSpace(out, 'conversations')).toEqual(bySlug((sim) => expected(sim).conversations));
    const manifest = JSON.parse(readFileSync(join(out, 'convoduck-export.json'), 'utf8')) as { tables: Record<string, { partitions: Record<string, unknown> }> };
    expect(Object.keys(manifest.tables.conversations!.partitions).some((p) => p.startsWith(`space=${c.space}/day=`))).toBe(true);
  });

  it('an unknown slug: one line, exit 2, nothing written', async () => {
    const out = join(dir, 'refused-export');
    const res = await runCli(['export', '--out', out, '--space', 'nowhere'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(unknownLine('nowhere'));
    expect(readdirSync(out)).toEqual([]);
  });
});
