// The scale-out recipe of docs/scale-out.md as users copy it: two machines, each its own config
// of spaces (three simulators over real HTTP) and its own database, run the hourly job at the
// same moment into one shared lake; the lake, read with the doc's DuckDB views, holds exactly
// what the two databases hold, run after run.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { CLI } from './support/cli.js';
import { place, recipe } from './support/doc-recipes.js';
import { withDuck } from './support/in-memory-duck.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDir } = scratch('scale-out', { rateLimit: 100_000 });
const TABLES = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'agents'] as const;

interface Machine {
  root: string;
  db: string;
  sims: Simulator[];
}

/** A machine: `convoduck` installed in its bin, its config of spaces (keys in files), its database and logs. */
function machine(shared: string, name: string, sims: Simulator[]): Machine & { script: string } {
  const root = join(shared, name);
  for (const d of ['bin', 'etc', 'var/lib/convoduck', 'var/log/convoduck']) mkdirSync(join(root, d), { recursive: true });
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(root, 'bin', 'convoduck'));
  const config = sims
    .map((sim, i) => {
      const key = join(root, 'etc', `key-${i}`);
      writeFileSync(key, `${sim.apiKey}\n`, { mode: 0o600 });
      return `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_file = "${key}"\nslug = "${sim.space}"\n`;
    })
    .join('\n');
  writeFileSync(join(root, 'etc', 'spaces.toml'), config);
  const db = join(root, 'var/lib/convoduck/convoduck.duckdb');
  const script = place(recipe('docs/scale-out.md', 'scale-out-job'), {
    '/usr/local/bin': join(root, 'bin'),
    '/etc/convoduck/spaces.toml': join(root, 'etc', 'spaces.toml'),
    '/var/lib/convoduck/convoduck.duckdb': db,
    '/var/log/convoduck': join(root, 'var/log/convoduck'),
    '/mnt/lake': join(shared, 'lake'),
  });
  writeFileSync(join(root, 'job'), script, { mode: 0o755 });
  return { root, db, sims, script: join(root, 'job') };
}

/** Runs the job as a scheduler does: sh, an empty environment. */
function runJob(m: { root: string; script: string }): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', [m.script], { cwd: m.root, env: {}, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Per table, every row's key columns as text, sorted: from the lake through the doc's views, or from the machines' databases. */
async function lakeRows(shared: string): Promise<{ tables: Record<string, string[]>; answer: Record<string, unknown>[] }> {
  const read = place(recipe('docs/scale-out.md', 'scale-out-read'), { '/mnt/lake': join(shared, 'lake') });
  const statements = read.split(';').map((s) => s.trim()).filter(Boolean);
  return withDuck(async (sql) => {
    let answer: Record<string, unknown>[] = [];
    for (const s of statements) answer = await sql(s);
    for (const t of TABLES.filter((t) => !read.includes(`VIEW ${t} `)))
      await sql(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${join(shared, 'lake', t)}/**/*.parquet', hive_partitioning = true)`);
    return { tables: await keyRows(sql), answer };
  });
}

async function storedRows(machines: Machine[]): Promise<{ tables: Record<string, string[]>; answer: Record<string, unknown>[] }> {
  return withDuck(async (sql) => {
    for (const [i, m] of machines.entries()) await sql(`ATTACH '${m.db}' AS m${i} (READ_ONLY)`);
    const union = (t: string) => machines.map((_, i) => `SELECT * FROM m${i}.${t}`).join(' UNION ALL ');
    for (const t of TABLES) await sql(`CREATE VIEW ${t} AS ${union(t)}`);
    const read = recipe('docs/scale-out.md', 'scale-out-read');
    const question = read.slice(read.lastIndexOf(';', read.lastIndexOf(';') - 1) + 1).trim();
    return { tables: await keyRows(sql), answer: await sql(question) };
  });
}

const KEYS: Record<(typeof TABLES)[number], string> = {
  conversations: `id, space, agent_id, outcome, epoch_ms(started_at), duration_sec, message_count`,
  transcript_turns: `conversation_id, seq, epoch_ms(spoken_at), speaker, text, node_key`,
  tool_calls: `conversation_id, seq, tool_id, status, input_redacted::VARCHAR`,
  node_visits: `conversation_id, seq, node_key`,
  agents: `id, space, name, status`,
};

async function keyRows(sql: (q: string) => Promise<Record<string, unknown>[]>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const rows = await sql(`SELECT concat_ws('|', ${KEYS[t]}) AS k FROM ${t} ORDER BY k`);
    out[t] = rows.map((r) => String(r.k));
  }
  return out;
}

describe('scale-out: machines exporting their spaces into one lake', () => {
  it('two machines’ jobs at the same moment: the lake read as one dataset holds exactly what both databases hold, run after run', async () => {
    const shared = tempDir();
    const sims = await Promise.all([71, 72, 73].map((seed, i) => simulator({ seed, conversations: [60, 45, 50][i] })));
    const one = machine(shared, 'machine-1', sims.slice(0, 2));
    const two = machine(shared, 'machine-2', sims.slice(2));

    for (const round of [1, 2]) {
      if (round === 2) for (const sim of sims) sim.addConversations(7, { open: false });
      const results = await Promise.all([runJob(one), runJob(two)]);
      // the job writes its messages to its log, as the doc's job does: show them when it fails
      const logs = [one, two].map((m) => {
        const log = join(m.root, 'var/log/convoduck/sync.log');
        return `${m.root}:\n${existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-15).join('\n') : '(no log)'}`;
      });
      expect(results, `round ${round}: ${JSON.stringify(results)}\n${logs.join('\n')}`).toEqual([
        { code: 0, stderr: '' },
        { code: 0, stderr: '' },
      ]);

      const lake = await lakeRows(shared);
      const stored = await storedRows([one, two]);
      for (const t of TABLES) {
        expect(lake.tables[t]!.length, `${t} rows, round ${round}`).toBeGreaterThan(0);
        expect(lake.tables[t], `${t}, round ${round}`).toEqual(stored.tables[t]);
      }
      // every space of both machines, each with all of its conversations
      expect(lake.answer.map((r) => r.space)).toEqual(sims.map((s) => s.space).sort());
      expect(lake.answer.map((r) => Number(r.conversations))).toEqual(
        [...sims].sort((a, b) => a.space.localeCompare(b.space)).map((s) => s.dataset.conversations.length),
      );
      expect(lake.answer).toEqual(stored.answer);
    }
    // one lake: a space= directory per space under each table, nothing else left behind
    expect(readdirSync(join(shared, 'lake', 'conversations')).sort()).toEqual(sims.map((s) => `space=${s.space}`).sort());
    expect(readdirSync(join(shared, 'lake')).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 300_000);
});
