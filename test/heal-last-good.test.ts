// An unattended sync heals a damaged database from its last-good copy (store/restore-last-good.ts),
// over real HTTP and real files: the file damaged as a kill in DuckDB's write of a metadata block
// leaves it (bytes of its first metadata block overwritten: it no longer opens), with and without
// the copy beside it, alone and as a space file of --db-dir; and no erasure leaves a copy that
// could bring its rows back.
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { eraseConversations } from '../src/erase/erase.js';
import { readWhole } from '../src/soak/read-whole.js';
import { storedConversations } from '../src/erase/select.js';
import { Database } from '../src/store/database.js';
import { lastGoodPath } from '../src/store/last-good.js';
import { redactStoredRows } from '../src/store/redact-stored.js';
import { spaceDbPath } from '../src/store/space-files.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb, tempDir } = scratch('heal-last-good', { rateLimit: 100_000 });

/** A torn metadata block, as a kill in DuckDB's write of it leaves: the file no longer opens. */
function damage(path: string): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(64, 7), 0, 64, 12_288 + 200);
  closeSync(fd);
}

/** Files beside `path` whose names start with its name followed by `.damaged-`. */
function keptAside(path: string): string[] {
  return readdirSync(dirname(path)).filter((f) => f.startsWith(`${basename(path)}.damaged-`)).map((f) => join(dirname(path), f));
}

/** The samples of one metric in a `--metrics-file`, as Prometheus parses it: labels and value. */
function samples(prom: string, name: string): { labels: Record<string, string>; value: number; type: string }[] {
  const family = parsePrometheusTextFormat(readFileSync(prom, 'utf8')).find((f) => f.name === name);
  return (family?.metrics ?? []).map((m) => ({ labels: { ...m.labels }, value: Number(m.value), type: family!.type }));
}

const ids = (path: string): Promise<string[]> =>
  Database.with(path, async (db) => (await db.all<{ id: string }>(`SELECT id FROM conversations ORDER BY id`)).map((r) => r.id), { readOnly: true });

const WARNING = /^convoduck: warning: (\S+) is damaged and does not open \(.*Corrupt database file.*\); restored from its last-good copy of (\S+) — this sync fetches again what came after the copy; the damaged file is kept as (\S+?)(?: \(its WAL beside it\))?, nothing was deleted$/m;

describe('sync heals a damaged file from its last-good copy', () => {
  it('keeps the damaged file and its WAL aside, restores the copy, fetches what came after, and records it', async () => {
    const sim = await simulator({ seed: 4701, conversations: 30 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const prom = join(dirname(dbPath), 'convoduck.prom');
    expect((await runCli(['sync', '--metrics-file', prom], env)).code).toBe(0);
    // never restored: no time of a restore, and a counter at zero (an increase from it is a restore)
    expect(samples(prom, 'convoduck_last_restore_timestamp_seconds')).toEqual([]);
    expect(samples(prom, 'convoduck_restores_total')).toEqual([{ labels: { space: sim.space }, value: 0, type: 'COUNTER' }]);
    const copy = lastGoodPath(dbPath);
    const copyBytes = readFileSync(copy);
    const copyTakenAt = statSync(copy).mtime;

    // after the copy: conversations only the API has, a damaged file, and a WAL that is not the copy's
    sim.addConversations(6, { open: false });
    damage(dbPath);
    writeFileSync(`${dbPath}.wal`, Buffer.alloc(512, 3));
    const damagedBytes = readFileSync(dbPath);

    const healed = await runCli(['sync', '--json', '--metrics-file', prom], env);
    expect(healed.code, healed.stderr).toBe(0);
    const warning = WARNING.exec(healed.stderr);
    expect(warning, healed.stderr).not.toBeNull();
    expect(warning![1]).toBe(dbPath);
    expect(warning![2]).toBe(copyTakenAt.toISOString().replace(/\.\d+Z$/, 'Z'));
    expect(JSON.parse(healed.stdout)).toMatchObject({ status: 'ok', restoredFromCopyAt: copyTakenAt.toISOString(), damagedFileKeptAs: warning![3] });
    // kept, byte for byte, with its WAL beside it under its new name
    expect(keptAside(dbPath).sort()).toEqual([warning![3]!, `${warning![3]!}.wal`].sort());
    expect(readFileSync(warning![3]!).equals(damagedBytes)).toBe(true);
    expect(readFileSync(`${warning![3]!}.wal`)).toEqual(Buffer.alloc(512, 3));
    // the data a fresh sync stores, the conversations after the copy included
    await expectStoreMatches(dbPath, sim.dataset);
    expect((await ids(dbPath)).length).toBe(sim.dataset.conversations.length);
    // the copy was copied, not moved: it is there, and this run's end refreshed it
    expect(existsSync(copy)).toBe(true);
    expect(readFileSync(copy).equals(copyBytes)).toBe(false);

    const runs = await Database.with(
      dbPath,
      (db) => db.all<{ restored: number | null; kept: string | null }>(`SELECT epoch_ms(restored_from_copy_at)::DOUBLE AS restored, damaged_file_kept_as AS kept FROM sync_runs ORDER BY run_id`),
      { readOnly: true },
    );
    expect(runs.length).toBe(2);
    expect(runs[0]).toEqual({ restored: null, kept: null });
    expect(runs[1]!.kept).toBe(warning![3]);
    expect(runs[1]!.restored).toBe(copyTakenAt.getTime());

    // the person on call sees it in the metrics file: when the space's file was last restored, and how often
    const [restoringRun] = await Database.with(
      dbPath,
      (db) => db.all<{ started: number }>(`SELECT epoch(started_at)::DOUBLE AS started FROM sync_runs WHERE restored_from_copy_at IS NOT NULL`),
      { readOnly: true },
    );
    expect(samples(prom, 'convoduck_last_restore_timestamp_seconds')).toEqual([{ labels: { space: sim.space }, value: restoringRun!.started, type: 'GAUGE' }]);
    expect(samples(prom, 'convoduck_restores_total')).toEqual([{ labels: { space: sim.space }, value: 1, type: 'COUNTER' }]);

    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`the file was damaged and was restored from its last-good copy of`);
    expect(status.stdout).toContain(`the damaged file is kept as ${warning![3]}`);
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout) as { runs: { restoredFromCopyAt: string | null; damagedFileKeptAs: string | null }[] };
    expect(json.runs[0]!.damagedFileKeptAs).toBe(warning![3]);
    expect(json.runs[0]!.restoredFromCopyAt).not.toBeNull();
    expect(json.runs[1]!.restoredFromCopyAt).toBeNull();
  });

  it('without a copy, fails as before, moves nothing and keeps no copy of the damaged file', async () => {
    const sim = await simulator({ seed: 4702, conversations: 10 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    const copy = lastGoodPath(dbPath);
    rmSync(copy);
    damage(dbPath);
    const damagedBytes = readFileSync(dbPath);

    const failed = await runCli(['sync'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr.split('\n').filter((l) => l.startsWith('convoduck:'))).toEqual([expect.stringMatching(/^convoduck: cannot open database .*Corrupt database file.*in block at location 12288$/)]);
    expect(failed.stderr).not.toContain('restored');
    expect(keptAside(dbPath)).toEqual([]);
    expect(readFileSync(dbPath).equals(damagedBytes)).toBe(true);
    // the damaged file is no copy to keep
    expect(existsSync(copy)).toBe(false);
  });

  it('with a copy that is damaged too, says so and what to do, and moves nothing', async () => {
    const sim = await simulator({ seed: 4708, conversations: 6 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    const copy = lastGoodPath(dbPath);
    damage(dbPath);
    damage(copy);
    const [damagedBytes, copyBytes] = [readFileSync(dbPath), readFileSync(copy)];
    const BOTH = new RegExp(
      `^convoduck: cannot open database ${dbPath}: .*Corrupt database file.* — the file is damaged, and so is its last-good copy ${copy} \\(.*Corrupt database file.*\\): ` +
        `no sync can restore it; move both aside and run \`convoduck sync\`, which fetches everything again into a new file \\(run your \`forget\`s again\\), or put back a backup$`,
    );

    // the next run would not fix it: a usage-level failure, and no promise of a restore
    const failed = await runCli(['sync'], env);
    expect(failed.code).toBe(2);
    expect(failed.stderr.split('\n').filter((l) => l.startsWith('convoduck:')), failed.stderr).toEqual([expect.stringMatching(BOTH)]);
    const reader = await runCli(['status'], env);
    expect(reader.code).not.toBe(0);
    expect(reader.stderr.trim().split('\n'), reader.stderr).toEqual([expect.stringMatching(BOTH)]);

    expect(keptAside(dbPath)).toEqual([]);
    expect(readdirSync(dirname(dbPath)).filter((f) => f.startsWith(basename(dbPath))).sort()).toEqual([basename(dbPath), basename(copy)]);
    expect(readFileSync(dbPath).equals(damagedBytes)).toBe(true);
    expect(readFileSync(copy).equals(copyBytes)).toBe(true);
  });

  it('restores a space file of --db-dir, the other space untouched', async () => {
    const sims = await Promise.all([simulator({ seed: 4703, conversations: 8 }), simulator({ seed: 4704, conversations: 8 })]);
    const root = tempDir();
    const dir = join(root, 'spaces');
    const config = join(root, 'spaces.toml');
    writeFileSync(config, sims.map((s, i) => `[[space]]\nbase_url = "${s.baseUrl}"\napi_key_env = "KEY_${i}"\nslug = "${s.space}"\n`).join('\n'));
    const env = { CONVODUCK_CONFIG: config, KEY_0: sims[0]!.apiKey, KEY_1: sims[1]!.apiKey };
    expect((await runCli(['sync', '--db-dir', dir], env)).code).toBe(0);
    const [damaged, whole] = sims.map((s) => spaceDbPath(dir, s.space));
    sims[0]!.addConversations(3, { open: false });
    damage(damaged!);

    const healed = await runCli(['sync', '--db-dir', dir], env);
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.stderr.match(new RegExp(WARNING.source, "gm")), healed.stderr).toHaveLength(1);
    expect(WARNING.exec(healed.stderr)![1]).toBe(damaged);
    expect(keptAside(damaged!)).toHaveLength(1);
    expect(keptAside(whole!)).toEqual([]);
    expect((await ids(damaged!)).length).toBe(sims[0]!.dataset.conversations.length);
    expect((await ids(whole!)).length).toBe(sims[1]!.dataset.conversations.length);
  });
});

describe('no copy brings erased conversations back', () => {
  it('after a forget, a restore does not bring the forgotten conversation back', async () => {
    const sim = await simulator({ seed: 4705, conversations: 12 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    const copy = lastGoodPath(dbPath);
    expect(await readWhole(copy)).toMatchObject({ error: null });
    // the forget's rewrite leaves nothing of the conversation in the copy either
    const erased = sim.dataset.conversations[0]!.id;
    const forgot = await runCli(['forget', '--id', erased], env);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(await ids(copy)).not.toContain(erased);
    sim.addConversations(3, { open: false });
    damage(dbPath);

    // a reader restores nothing: it says what the next sync does
    const reader = await runCli(['status'], env);
    expect(reader.code).toBe(1);
    expect(reader.stderr.trim().split('\n')).toHaveLength(1);
    expect(reader.stderr).toMatch(
      /^convoduck: cannot open database .*Corrupt database file.* — the file is damaged; .*last-good is a whole copy of it from \S+: the next `convoduck sync` keeps the damaged file aside, puts the copy in its place and fetches again what came after/,
    );
    expect(keptAside(dbPath)).toEqual([]);

    const healed = await runCli(['sync'], env);
    expect(healed.code, healed.stderr).toBe(0);
    expect(healed.stderr).toMatch(WARNING);
    const held = await ids(dbPath);
    expect(held).not.toContain(erased);
    expect(held.length).toBe(sim.dataset.conversations.length - 1);
  });

  it('an erasure that committed but was not rewritten (a forget killed between them) leaves no copy to restore from', async () => {
    const sim = await simulator({ seed: 4706, conversations: 12 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    expect(existsSync(lastGoodPath(dbPath))).toBe(true);
    const erased = sim.dataset.conversations[0]!.id;
    // forget's erasure, without the rewrite that follows it
    await Database.with(dbPath, async (db) => {
      const [target] = await storedConversations(db, [erased]);
      await eraseConversations(db, [{ target: target!, rule: 'id', selectorHash: null }], new Date());
    });
    expect(existsSync(lastGoodPath(dbPath))).toBe(false);
    damage(dbPath);

    const after = await runCli(['sync'], env);
    expect(after.code).toBe(2);
    expect(after.stderr).not.toMatch(WARNING);
    expect(keptAside(dbPath)).toEqual([]);
    expect(existsSync(lastGoodPath(dbPath))).toBe(false);
  });

  it('nor does a redaction at rest that committed but was not rewritten: the clear-text copy is gone', async () => {
    const sim = await simulator({ seed: 4707, conversations: 6 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    expect(existsSync(lastGoodPath(dbPath))).toBe(true);
    // the at-rest conversion's transaction, without the rewrite that follows it
    await redactStoredRows(dbPath, sim.space, { key: Buffer.alloc(32, 9) }, new Date());
    expect(existsSync(lastGoodPath(dbPath))).toBe(false);
  });
});
