// Retention over real HTTP: `sync --retain-days N` erases exactly the conversations that started
// more than N days before the run, through the same path as `forget` (rule `retention`), and no
// later sync, incremental or full, sends a request for them or stores them again; `--erase-deleted`
// does the same for the conversations the source deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';

let sim: Simulator;
let dir: string;
const DAY = 86_400_000;

beforeAll(async () => {
  sim = await startSimulator({ seed: 91, conversations: 120, rateLimit: 100_000 });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-retention-'));
});

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const envFor = (dbPath: string) => ({ CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath });

const startedMs = (id: string) => Date.parse(sim.dataset.record(id)!.summary.started_at!);

async function storedIds(db: string): Promise<string[]> {
  const rows = await Database.with(db, (d) => d.all<{ id: string }>(`SELECT id FROM conversations ORDER BY id`), { readOnly: true });
  return rows.map((r) => r.id);
}

describe('sync --retain-days', () => {
  it('erases exactly the conversations older than N days, and no later sync asks for them', async () => {
    const db = join(dir, 'retain.duckdb');
    const before = Date.now();
    const run = await runCli(['sync', '--retain-days', '10'], envFor(db));
    const after = Date.now();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/convoduck: space \S+: erased \d+ older than the retention period/);

    const old = sim.dataset.records.filter((r) => startedMs(r.id) < before - 10 * DAY).map((r) => r.id);
    const ambiguous = sim.dataset.records.filter((r) => startedMs(r.id) >= before - 10 * DAY && startedMs(r.id) < after - 10 * DAY);
    expect(ambiguous).toEqual([]); // no start falls inside the run itself: "exactly" is well defined
    const young = sim.dataset.records.map((r) => r.id).filter((id) => !old.includes(id));
    expect(old.length).toBeGreaterThan(10);
    expect(await storedIds(db)).toEqual([...young].sort());
    const log = await Database.with(db, (d) => d.all<{ id: string; rule: string }>(`SELECT id, rule FROM erasures ORDER BY id`), { readOnly: true });
    expect(log).toEqual([...old].sort().map((id) => ({ id, rule: 'retention' })));

    // an incremental sync, then a full one that lists them all again: no detail request, nothing stored
    const from = sim.requestLog.length;
    for (const args of [['sync'], ['sync', '--full']]) {
      const again = await runCli(args, envFor(db));
      expect(again.code, again.stderr).toBe(0);
    }
    const asked = sim.requestLog.slice(from).filter((r) => old.some((id) => r.path.endsWith(`/conversations/${id}`)));
    expect(asked).toEqual([]);
    expect(await storedIds(db)).toEqual([...young].sort());
  }, 300_000);

  it('takes retain_days and erase_deleted from a space of the config file', async () => {
    const db = join(dir, 'config.duckdb');
    const config = join(dir, 'spaces.toml');
    writeFileSync(config, `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "SIM_KEY"\nretain_days = 20\nerase_deleted = true\n`);
    const run = await runCli(['sync', '--config', config], { SIM_KEY: sim.apiKey, CONVODUCK_DB: db });
    expect(run.code, run.stderr).toBe(0);
    const oldest = Math.min(...(await storedIds(db)).map(startedMs));
    expect(oldest).toBeGreaterThanOrEqual(Date.now() - 20 * DAY - 60_000);
  }, 300_000);

  it('refuses a retention that is no whole number of days: exit 2, one line', async () => {
    const run = await runCli(['sync', '--retain-days', 'ten'], envFor(join(dir, 'bad.duckdb')));
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual(['convoduck: --retain-days "ten" must be a whole number above 0']);
  }, 300_000);
});

describe('sync --erase-deleted', () => {
  it('erases the conversations deleted at the source once a listing shows them gone, and asks for them no more', async () => {
    const db = join(dir, 'deleted.duckdb');
    expect((await runCli(['sync'], envFor(db))).code).toBe(0);
    const all = await storedIds(db);
    const gone = all.slice(5, 9);
    sim.realData.vanish(gone);
    const run = await runCli(['sync', '--full', '--erase-deleted'], envFor(db));
    expect(run.code, run.stderr).toBe(0);
    expect(await storedIds(db)).toEqual(all.filter((id) => !gone.includes(id)));
    const log = await Database.with(db, (d) => d.all<{ id: string; rule: string }>(`SELECT id, rule FROM erasures ORDER BY id`), { readOnly: true });
    expect(log).toEqual([...gone].sort().map((id) => ({ id, rule: 'deleted_at_source' })));
    const rows = await Database.with(
      db,
      (d) => d.all<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM transcript_turns WHERE conversation_id IN (${gone.map(() => '?').join(',')})`, gone),
      { readOnly: true },
    );
    expect(rows[0]!.n).toBe(0);
    const from = sim.requestLog.length;
    expect((await runCli(['sync', '--full'], envFor(db))).code).toBe(0);
    expect(sim.requestLog.slice(from).filter((r) => gone.some((id) => r.path.endsWith(`/conversations/${id}`)))).toEqual([]);
  }, 300_000);
});
