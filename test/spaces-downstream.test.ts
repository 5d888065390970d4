// Everything that reads a database of several spaces: `status` shows each space, and `status`,
// `query`, `export` and `report` take --space SLUG (repeatable) to read only those spaces' rows;
// an unknown slug is one line, exit 2, listing the known ones. The database: three simulated
// spaces crawled over real HTTP in one run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/spaces.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';

const SEEDS = [141, 142, 143] as const;
const SIZES = [90, 70, 50] as const;

let sims: Simulator[] = [];
let dir: string;
let dbPath: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sims = await Promise.all(SEEDS.map((seed, i) => startSimulator({ seed, conversations: SIZES[i], rateLimit: 100_000 })));
  dir = mkdtempSync(join(tmpdir(), 'convoduck-spaces-downstream-'));
  dbPath = join(dir, 'spaces.duckdb');
  env = { CONVODUCK_DB: dbPath };
  const summary = await syncSpaces({
    dbPath,
    spaces: sims.map((sim, i) => ({ label: `space ${i}`, baseUrl: sim.baseUrl, apiKey: sim.apiKey })),
  });
  expect(summary.spaces.map((s) => s.status)).toEqual(['ok', 'ok', 'ok']);
}, 60_000);

afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
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
      spaces: { space: string; watermark: string | null; lastRun: { runId: number; status: string } | null; listed: number; stored: number; pending: number }[];
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
        pending: expected(sim).open,
      });
    }
    // every space listed up to the earliest of their watermarks
    expect(s.watermark).toBe(sorted(s.spaces.map((p) => p.watermark!))[0]);

    const text = await runCli(['status'], env);
    expect(text.stdout).toMatch(/^spaces {5}3$/m);
    for (const sim of sims) expect(text.stdout).toMatch(new RegExp(`^  ${sim.space}\\s+\\S+Z\\s+\\d+ \\S+Z\\s+ok\\s+${expected(sim).conversations}\\s+${expected(sim).conversations}\\s+${expected(sim).open}$`, 'm'));
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

  it('an unknown slug: one line listing the known ones, exit 2', async () => {
    const res = await runCli(['query', '--space', 'nowhere', 'SELECT 1'], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(unknownLine('nowhere'));
  });
});
