// `sync --db-dir` and shards over real HTTP: each space in its own file; the shards of a job own
// disjoint sets of spaces; when the shard count changes a moved space's next run costs what an
// incremental run costs; two processes (the same shard twice, or two shard counts) never sync one
// space at once; another host's lock is respected while its heartbeat moves and taken over once
// it has stood still for the lease.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDataset, type RequestLogEntry, type Simulator } from '../src/simulator/index.js';
import { shardOf } from '../src/shared/shards.js';
import { Database } from '../src/store/database.js';
import { spaceDbPath } from '../src/store/space-files.js';
import { runCli, startCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys, expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDir } = scratch('shards');

const everything = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });
const ofKind = (entries: RequestLogEntry[], kind: string): number => entries.filter((r) => r.client === 'key' && r.kind === kind).length;

interface Job {
  sims: Simulator[];
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** `count` simulated spaces, slugs space-01 …, small pages so that a full listing takes several. */
async function spaces(count: number, options: { conversations?: number; detailMs?: number } = {}): Promise<Simulator[]> {
  const now = new Date();
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      simulator({
        rateLimit: 100_000,
        servedPerPage: 20,
        ...(options.detailMs ? { latency: { detailMs: options.detailMs } } : {}),
        dataset: generateDataset({ seed: 3800 + i, conversations: options.conversations ?? 60, now, spaceSlug: `space-${String(i + 1).padStart(2, '0')}` }),
      }),
    ),
  );
}

function job(sims: Simulator[], extra: string[] = []): Job {
  const root = tempDir();
  const config = join(root, 'spaces.toml');
  writeFileSync(config, sims.map((sim, i) => `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "KEY_${i}"\nslug = "${sim.space}"\n${extra[i] ?? ''}`).join('\n'));
  const env: NodeJS.ProcessEnv = { CONVODUCK_CONFIG: config, CONVODUCK_DB_DIR: join(root, 'spaces') };
  sims.forEach((sim, i) => (env[`KEY_${i}`] = sim.apiKey));
  return { sims, dir: join(root, 'spaces'), env };
}

interface JsonRun {
  status: string;
  exitCode: number;
  shard?: { count: number; index: number; spaces: string[] };
  spaces: { space: string; status: string; error: string | null; db?: string; detailsFetched?: number }[];
}

const json = (r: CliResult): JsonRun => JSON.parse(r.stdout) as JsonRun;

async function runsOf(dbPath: string): Promise<{ started: number; ended: number; status: string; incremental: boolean }[]> {
  const db = await Database.open(dbPath, { readOnly: true });
  try {
    const rows = await db.all<{ started_at: Date; ended_at: Date | null; status: string; window_from: Date | null }>(
      `SELECT started_at, ended_at, status, window_from FROM sync_runs ORDER BY run_id`,
    );
    return rows.map((r) => ({ started: r.started_at.getTime(), ended: r.ended_at?.getTime() ?? Infinity, status: r.status, incremental: r.window_from !== null }));
  } finally {
    db.close();
  }
}

/** Each space's runs one after another, never two at once; as many runs as GET /spaces it served. */
async function expectOneAtATime(j: Job): Promise<number[]> {
  const counts: number[] = [];
  for (const sim of j.sims) {
    const runs = await runsOf(spaceDbPath(j.dir, sim.space));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started, `${sim.space}: run ${i + 1} began before run ${i} ended`).toBeGreaterThanOrEqual(runs[i - 1]!.ended);
    expect(runs.length, `${sim.space}: a sync that asked for the space wrote no run`).toBe(ofKind(sim.requestLog, 'spaces'));
    expect(runs.every((r) => r.status === 'ok'), sim.space).toBe(true);
    counts.push(runs.length);
  }
  return counts;
}

async function expectExact(j: Job): Promise<void> {
  for (const sim of j.sims) {
    const file = spaceDbPath(j.dir, sim.space);
    await expectStoreMatches(file, everything(sim), { space: sim.space });
    await Database.with(file, (db) => expectNoDuplicateKeys(db), { readOnly: true });
  }
}

describe('sync --db-dir with shards', () => {
  it('shards own disjoint spaces, each in its own file; N from 3 to 4 moves spaces without crawling them again', async () => {
    const sims = await spaces(6);
    const j = job(sims);
    const first = await Promise.all([0, 1, 2].map((i) => runCli(['sync', '--shard-count', '3', '--json'], { ...j.env, JOB_COMPLETION_INDEX: String(i) })));
    const owners = new Map<string, number>();
    first.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(0);
      const out = json(r);
      expect(out.shard).toEqual({ count: 3, index: i, spaces: out.spaces.map((s) => s.space) });
      expect(r.stderr).toContain(`shard ${i} of 3 owns ${out.spaces.length} of the config's 6 spaces`);
      for (const s of out.spaces) {
        expect(s.status).toBe('ok');
        expect(s.db).toBe(spaceDbPath(j.dir, s.space));
        expect(owners.has(s.space), `${s.space} owned twice`).toBe(false);
        owners.set(s.space, i);
      }
    });
    expect([...owners.keys()].sort()).toEqual(sims.map((s) => s.space));
    await expectExact(j);
    const firstLists = sims.map((sim) => ofKind(sim.requestLog, 'conversation_list'));
    // a full listing of 60 conversations at 20 a page
    for (const n of firstLists) expect(n).toBeGreaterThanOrEqual(3);

    const moved = sims.filter((sim) => shardOf(sim.space, 4) !== owners.get(sim.space));
    expect(moved.length, 'some space must move from 3 to 4 shards').toBeGreaterThan(0);
    const logged = sims.map((sim) => sim.requestLog.length);
    const open = sims.map((sim) => sim.dataset.conversations.filter((c) => sim.dataset.detail(c.id)!.ended_at === null).length);
    // new finished conversations in a moved space and in one that stays
    const stays = sims.find((sim) => !moved.includes(sim))!;
    for (const sim of [moved[0]!, stays]) {
      sim.setOptions({ arrivalLagMs: 60_000 });
      sim.addConversations(2, { open: false });
    }
    const metrics = [0, 1, 2, 3].map((i) => join(j.dir, `..`, `shard-${i}.prom`));
    const second = await Promise.all(
      [0, 1, 2, 3].map((i) => runCli(['sync', '--shard-count', '4', '--shard-index', String(i), '--json', '--metrics-file', metrics[i]!], j.env)),
    );
    second.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(0);
      // each shard's metrics are its own spaces' (a shard without any writes none, and says so)
      if (json(r).spaces.length === 0) {
        expect(existsSync(metrics[i]!)).toBe(false);
        expect(r.stderr).toContain(`convoduck: no metrics written to ${metrics[i]!}: this run synced no space`);
        return;
      }
      const stored = [...readFileSync(metrics[i]!, 'utf8').matchAll(/^convoduck_conversations_stored\{space="([^"]+)"\} \d+$/gm)].map((m) => m[1]);
      expect(stored).toEqual(json(r).spaces.map((x) => x.space).sort());
    });
    const secondOwners = new Map(second.flatMap((r) => json(r).spaces.map((s) => [s.space, json(r).shard!.index] as const)));
    expect([...secondOwners.keys()].sort()).toEqual(sims.map((s) => s.space));
    sims.forEach((sim, i) => {
      const again = sim.requestLog.slice(logged[i]);
      // an incremental run: the overlap window is one page, against the full listing of the first run
      expect(ofKind(again, 'conversation_list'), sim.space).toBe(1);
      expect(ofKind(again, 'conversation_detail'), sim.space).toBe(open[i]! + (sim === moved[0] || sim === stays ? 2 : 0));
    });
    await expectExact(j);
    for (const sim of sims) expect((await runsOf(spaceDbPath(j.dir, sim.space))).map((r) => r.incremental)).toEqual([false, true]);
  }, 300_000);

  it('the same shard twice and another shard count at once: no space synced by two processes at the same time', async () => {
    // slow details keep each space's run going for seconds, so that the processes meet
    const sims = await spaces(4, { conversations: 40, detailMs: 1_000 });
    const j = job(sims);
    const runs = await Promise.all([
      runCli(['sync', '--shard-count', '2', '--shard-index', '0', '--json'], j.env),
      runCli(['sync', '--shard-count', '2', '--shard-index', '0', '--json'], j.env),
      runCli(['sync', '--shard-count', '2', '--shard-index', '1', '--json'], j.env),
      runCli(['sync', '--shard-count', '1', '--json'], { ...j.env, JOB_COMPLETION_INDEX: '0' }),
    ]);
    const statuses = runs.flatMap((r) => json(r).spaces.map((s) => s.status));
    expect(statuses.filter((s) => s === 'skipped').length, 'some process must have met another on a space').toBeGreaterThan(0);
    expect(statuses.every((s) => s === 'ok' || s === 'skipped')).toBe(true);
    for (const r of runs) {
      const out = json(r);
      const all = out.spaces.every((s) => s.status === 'skipped');
      expect(r.code, r.stderr).toBe(all ? 75 : 0);
      for (const s of out.spaces.filter((x) => x.status === 'skipped')) {
        expect(s.error).toMatch(new RegExp(`^space ${s.space}: another convoduck sync \\(pid \\d+\\) is already writing .*${s.space}\\.duckdb: skipped by this run`));
      }
    }
    const counts = await expectOneAtATime(j);
    for (const n of counts) expect(n).toBeGreaterThanOrEqual(1);
    await expectExact(j);

    // waiting instead of skipping: the two processes of one shard each sync every space, in turn
    const logged = sims.map((s) => s.requestLog.length);
    const waited = await Promise.all([0, 1].map(() => runCli(['sync', '--shard-count', '1', '--shard-index', '0', '--wait', '5m', '--json'], j.env)));
    for (const r of waited) {
      expect(r.code, r.stderr).toBe(0);
      expect(json(r).spaces.map((s) => s.status)).toEqual(sims.map(() => 'ok'));
    }
    const after = await expectOneAtATime(j);
    after.forEach((n, i) => expect(n - counts[i]!).toBe(2));
    sims.forEach((sim, i) => expect(ofKind(sim.requestLog.slice(logged[i]), 'spaces')).toBe(2));
    await expectExact(j);
  }, 300_000);

  it("another host's lock: respected while its heartbeat moves, taken over once it stood still for the lease", async () => {
    const sims = await spaces(2, { conversations: 30 });
    const j = job(sims);
    const env = { ...j.env, CONVODUCK_LOCK_LEASE_MS: '1500' };
    const held = sims[0]!;
    const lock = `${spaceDbPath(j.dir, held.space)}.sync-lock`;
    await runCli(['sync', '--space', sims[1]!.space], env).then((r) => expect(r.code, r.stderr).toBe(0));
    expect(existsSync(j.dir)).toBe(true);
    // another pod: the replaced pod of an Indexed Job index has its predecessor's hostname, but
    // its own pid namespace, where a pid (here one that no process has on this machine) means nothing
    let beat = 0;
    const write = () => {
      const holder = { host: hostname(), machine: 'another boot id, another pid namespace', pid: 999_999, token: 'elsewhere', beat: beat++ };
      writeFileSync(`${lock}.tmp`, JSON.stringify(holder));
      renameSync(`${lock}.tmp`, lock);
    };
    write();
    const heart = setInterval(write, 200);
    let respected: CliResult;
    try {
      respected = await runCli(['sync', '--json'], env);
    } finally {
      clearInterval(heart);
    }
    expect(respected.code, respected.stderr).toBe(0);
    const out = json(respected);
    expect(out.spaces.map((s) => [s.space, s.status])).toEqual([
      [held.space, 'skipped'],
      [sims[1]!.space, 'ok'],
    ]);
    expect(out.spaces[0]!.error).toContain(`another convoduck sync (pid 999999 on host ${hostname()}) is already writing`);
    expect(ofKind(held.requestLog, 'spaces'), 'the held space was asked nothing').toBe(0);
    expect(existsSync(lock)).toBe(true);

    // the pod died: its heartbeat stands still, and after the lease the space is synced here
    const started = Date.now();
    const taken = await runCli(['sync', '--space', held.space, '--json'], env);
    expect(taken.code, taken.stderr).toBe(0);
    expect(json(taken).spaces.map((s) => [s.space, s.status])).toEqual([[held.space, 'ok']]);
    expect(Date.now() - started, 'the lock is taken over only after the lease').toBeGreaterThanOrEqual(1500);
    expect(existsSync(lock), 'released after the run').toBe(false);
    await expectExact(j);
  }, 300_000);

  it('a holder whose lock was taken over stops that space: failed, exit 1, the new lock left alone', async () => {
    const [sim] = await spaces(1, { conversations: 100, detailMs: 1_000 });
    const j = job([sim!]);
    const lock = `${spaceDbPath(j.dir, sim!.space)}.sync-lock`;
    const running = startCli(['sync', '--json'], { ...j.env, CONVODUCK_LOCK_LEASE_MS: '1500' });
    const deadline = Date.now() + 60_000;
    while (ofKind(sim!.requestLog, 'conversation_detail') < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // as if this process had stalled beyond the lease and another pod had taken the space over
    const other = JSON.stringify({ host: 'convoduck-sync-0', machine: 'elsewhere', pid: 7, token: 'new-holder', beat: 0 });
    writeFileSync(`${lock}.tmp`, other);
    renameSync(`${lock}.tmp`, lock);
    const done = await running.done;
    expect(done.code, done.stderr).toBe(1);
    const out = json(done);
    expect(out.spaces.map((s) => s.status)).toEqual(['failed']);
    expect(out.spaces[0]!.error).toMatch(/^space space-01: sync failed: the sync lock .* was taken over by another process/);
    expect(ofKind(sim!.requestLog, 'conversation_detail'), 'it stopped before fetching every detail').toBeLessThan(100);
    expect(readFileSync(lock, 'utf8'), 'the new holder keeps its lock').toBe(other);
  }, 300_000);

  it('refuses what cannot be sharded or stored per space in one line, exit 2; a shard without spaces exits 0', async () => {
    const sims = await spaces(2, { conversations: 10 });
    const j = job(sims, ['', 'shard = 1\n']);
    const pinned = await runCli(['sync', '--shard-count', '2', '--shard-index', '1', '--json'], j.env);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(json(pinned).shard!.spaces).toContain(sims[1]!.space);

    const beyond = await runCli(['sync', '--shard-count', '1', '--shard-index', '0'], j.env);
    expect(beyond.code).toBe(2);
    expect(beyond.stderr.trim()).toBe(`convoduck: space ${sims[1]!.space} is pinned to shard 1, but the job has shards 0 … 0 — change its shard or the shard count`);

    const config = join(tempDir(), 'unnamed.toml');
    writeFileSync(config, `[[space]]\nbase_url = "${sims[0]!.baseUrl}"\napi_key_env = "KEY_0"\n`);
    const unnamed = await runCli(['sync', '--config', config], j.env);
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr.trim()).toMatch(/^convoduck: \[\[space\]\] #1 \(line 1\) in config .* names no slug, and --db-dir stores each space in a file named by its slug — add slug = "…" to every \[\[space\]\]$/);
    // shards into one file each (--db): the shard's spaces, exact
    const own = join(tempDir(), 'shard-1.duckdb');
    const inFile = await runCli(['sync', '--db', own, '--shard-count', '2', '--shard-index', '1', '--json'], j.env);
    expect(inFile.code, inFile.stderr).toBe(0);
    const ownedHere = sims.filter((s) => json(inFile).shard!.spaces.includes(s.space));
    expect(ownedHere).toContain(sims[1]!);
    for (const sim of ownedHere) await expectStoreMatches(own, everything(sim), { space: sim.space });

    const noConfig = await runCli(['sync', '--db-dir', j.dir], { CONVODUCK_BASE_URL: sims[0]!.baseUrl, CONVODUCK_API_KEY: sims[0]!.apiKey });
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr.trim().split('\n')).toHaveLength(1);

    // a shard that owns nothing: one line, exit 0, nothing asked
    const many = j.sims.map((s) => s.requestLog.length);
    const idle = Array.from({ length: 8 }, (_, i) => i).find((i) => sims.every((s, k) => (k === 1 ? 1 : shardOf(s.space, 8)) !== i))!;
    const none = await runCli(['sync', '--shard-count', '8', '--shard-index', String(idle), '--json'], j.env);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stderr).toContain(`convoduck: shard ${idle} of 8 owns none of the config's 2 spaces: nothing to sync`);
    expect(json(none)).toMatchObject({ status: 'ok', exitCode: 0, shard: { count: 8, index: idle, spaces: [] }, spaces: [] });
    expect(j.sims.map((s) => s.requestLog.length)).toEqual(many);
  }, 300_000);
});
