// `convoduck forget` over real HTTP and a real DuckDB file: erasing a caller by phone number leaves
// no row of those conversations in any table and no byte of their text in the file, the others
// untouched row by row; a dry run changes nothing; bad input exits 2 with one line, nothing changed.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONVERSATION_ROW_TABLES } from '../src/store/erasures.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { conversationOf, fileBytes, foundIn, snapshotTables, type Snapshot } from './support/db-snapshot.js';

let sim: Simulator;
let dir: string;
let golden: string;
let copies = 0;

beforeAll(async () => {
  sim = await startSimulator({ seed: 27, conversations: 160, rateLimit: 100_000 });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-forget-'));
  golden = join(dir, 'golden.duckdb');
  const synced = await runCli(['sync'], envFor(golden));
  expect(synced.code, synced.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function envFor(dbPath: string): NodeJS.ProcessEnv {
  return { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
}

/** A copy of the synced database for one test. */
function freshCopy(): string {
  const path = join(dir, `copy-${++copies}.duckdb`);
  copyFileSync(golden, path);
  return path;
}

const sha = (path: string) => createHash('sha256').update(fileBytes(path)).digest('hex');

/** The caller with the most conversations holding their phone number, and those conversations. */
function repeatCaller() {
  const byPhone = new Map<string, { ids: string[]; truth: NonNullable<ReturnType<Simulator['dataset']['personalData']>> }>();
  for (const r of sim.dataset.records) {
    const truth = sim.dataset.personalData(r.id)!;
    if (!truth.found.some((f) => f.kind === 'phone')) continue;
    const entry = byPhone.get(truth.caller.phoneE164) ?? { ids: [], truth };
    entry.ids.push(r.id);
    byPhone.set(truth.caller.phoneE164, entry);
  }
  return [...byPhone.values()].sort((a, b) => b.ids.length - a.ids.length)[0]!;
}

/** Text of the erased conversations no other conversation holds: their data, and every transcript line naming it. */
function needlesOf(ids: readonly string[], caller: ReturnType<typeof repeatCaller>['truth']['caller']): string[] {
  const data = [caller.phoneNational, caller.phoneInternational, caller.phoneE164, caller.email, caller.card, caller.iban];
  const lines = ids.flatMap((id) => sim.dataset.detail(id)!.transcript!.map((t) => t.text).filter((t) => data.some((d) => t.includes(d))));
  return [...new Set([...data, ...lines])];
}

/** Every table after must be the table before without the erased conversations' rows (erasures aside). */
function expectUntouchedBut(before: Snapshot, after: Snapshot, erased: ReadonlySet<string>): void {
  expect([...after.keys()]).toEqual([...before.keys()]);
  for (const [table, { rows }] of before) {
    if (table === 'erasures') continue;
    const kept = rows.filter((row) => !erased.has(conversationOf(table, row) ?? ''));
    expect(after.get(table)!.rows, table).toEqual(kept);
  }
}

describe('forget --match PHONE', () => {
  it('erases every conversation holding the number, in any form, and leaves no byte of them in the file', async () => {
    const { ids, truth } = repeatCaller();
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const db = freshCopy();
    const needles = needlesOf(ids, truth.caller);
    // the check can see them: before, the file holds some of their text as it was written
    expect(foundIn(fileBytes(db), needles).length).toBeGreaterThan(0);
    const before = await snapshotTables(db);

    // the national form, while the conversations hold national, international and E.164 forms
    const result = await runCli(['forget', '--match', truth.caller.phoneNational], envFor(db));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').map((l) => l.split('\t')[0]).sort()).toEqual([...ids].sort());
    expect(result.stdout + result.stderr).not.toContain(truth.caller.phoneNational);

    const after = await snapshotTables(db);
    expectUntouchedBut(before, after, new Set(ids));
    for (const [table, { rows }] of after) {
      if (table === 'erasures') continue;
      for (const row of rows) for (const n of needles) expect(row.includes(JSON.stringify(n).slice(1, -1)), `${table} holds ${n}`).toBe(false);
    }
    const log = after.get('erasures')!.rows.map((r) => JSON.parse(r) as Record<string, unknown>);
    expect(log.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(new Set(log.map((r) => r.rule))).toEqual(new Set(['match']));
    expect(log.every((r) => r.selector_hash === null && r.space === sim.space)).toBe(true);
    expect(foundIn(fileBytes(db), needles)).toEqual([]);
  }, 300_000);

  it('a later full sync neither stores nor fetches them again', async () => {
    const { ids, truth } = repeatCaller();
    const db = freshCopy();
    expect((await runCli(['forget', '--match', truth.caller.email], envFor(db))).code).toBe(0);
    const from = sim.requestLog.length;
    const resync = await runCli(['sync', '--full'], envFor(db));
    expect(resync.code, resync.stderr).toBe(0);
    const asked = sim.requestLog.slice(from).filter((r) => ids.some((id) => r.path.endsWith(`/conversations/${id}`)));
    expect(asked).toEqual([]);
    const stored = await Database.with(db, (d) => d.all(`SELECT id FROM conversations WHERE id IN (${ids.map(() => '?').join(',')})`, ids), { readOnly: true });
    expect(stored).toEqual([]);
  }, 300_000);
});

/** Every data file under an export folder, by its path, with the hash of its bytes. */
function exportFiles(out: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(parquet|csv)$/.test(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(out, path), createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  return files;
}

/** An export by day of a fresh copy, the caller to erase, and how to count turns in the folder. */
async function exportedByDay() {
  const { ids, truth } = repeatCaller();
  const db = freshCopy();
  const out = join(dir, `export-${copies}`);
  const exported = await runCli(['export', '--out', out, '--partition-by', 'day'], envFor(db));
  expect(exported.code, exported.stderr).toBe(0);
  const read = (sql: string) => Database.with(join(dir, `reader-${copies}-${Math.random()}.duckdb`), (d) => d.all<{ n: number }>(sql));
  const turns = `read_parquet('${out}/transcript_turns/**/*.parquet', hive_partitioning = true)`;
  const count = async (where: string) => (await read(`SELECT count(*)::INTEGER AS n FROM ${turns} WHERE ${where}`))[0]!.n;
  const loadState = `read_parquet('${out}/conversation_load_state/**/*.parquet', hive_partitioning = true)`;
  const countLoadState = async (where: string) => (await read(`SELECT count(*)::INTEGER AS n FROM ${loadState} WHERE ${where}`))[0]!.n;
  const ofIds = `conversation_id IN (${ids.map((id) => `'${id}'`).join(',')})`;
  // the days (UTC) the erased conversations started on: the partitions that hold them
  const days = new Set(ids.map((id) => sim.dataset.record(id)!.summary.started_at!).map((t) => new Date(t).toISOString().slice(0, 10)));
  return { ids, truth, db, out, count, countLoadState, ofIds, days };
}

/** Files of partitions other than `days` are byte for byte as before; those of `days` are not. */
function expectOnlyPartitionsRewritten(before: Map<string, string>, after: Map<string, string>, days: ReadonlySet<string>): void {
  const dayOf = (path: string) => /day=([^/]+)/.exec(path)?.[1] ?? null;
  const conversational = (path: string) => dayOf(path) !== null;
  for (const [path, hash] of before) {
    if (!conversational(path)) continue;
    if (days.has(dayOf(path)!)) expect(after.get(path), path).not.toBe(hash);
    else expect(after.get(path), path).toBe(hash);
  }
}

describe('forget --out DIR', () => {
  it('rewrites only the partitions that held the erased conversations: none of their rows is left, the others are untouched', async () => {
    const { ids, truth, db, out, count, countLoadState, ofIds, days } = await exportedByDay();
    const total = await count('true');
    const gone = await count(ofIds);
    expect(gone).toBeGreaterThan(0);
    expect(await countLoadState(ofIds)).toBe(ids.length);
    const before = exportFiles(out);

    const result = await runCli(['forget', '--match', truth.caller.phoneE164, '--out', out], envFor(db));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`forget: rewrote the ${days.size} partition${days.size === 1 ? '' : 's'} that held them (${[...days].sort().join(', ')})`);
    expect(await count(`${ofIds} OR contains(text, '${truth.caller.phoneE164}') OR contains(text, '${truth.caller.phoneNational}')`)).toBe(0);
    expect(await count('true')).toBe(total - gone);
    // the load facts of the erased conversations went with their rows
    expect(await countLoadState(ofIds)).toBe(0);
    expectOnlyPartitionsRewritten(before, exportFiles(out), days);
  }, 300_000);
});

describe('the next export after forget', () => {
  it('rewrites the partitions that held erased conversations beside its --since, and no others', async () => {
    const { truth, db, out, count, ofIds, days } = await exportedByDay();
    const total = await count('true');
    const gone = await count(ofIds);
    const before = exportFiles(out);
    expect((await runCli(['forget', '--match', truth.caller.email], envFor(db))).code).toBe(0);
    // the folder still holds them until an export runs
    expect(await count(ofIds)).toBe(gone);

    const next = await runCli(['export', '--out', out, '--partition-by', 'day', '--since', 'now'], envFor(db));
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`and the partitions that held erased conversations: ${[...days].sort().join(', ')}`);
    expect(await count(ofIds)).toBe(0);
    expect(await count('true')).toBe(total - gone);
    const today = new Date().toISOString().slice(0, 10);
    expectOnlyPartitionsRewritten(new Map([...before].filter(([p]) => !p.includes(`day=${today}`))), exportFiles(out), days);
  }, 300_000);
});

describe('forget --dry-run', () => {
  it('lists id, space and started_at of what would go, never the text, and changes nothing', async () => {
    const { ids, truth } = repeatCaller();
    const db = freshCopy();
    const hash = sha(db);
    const result = await runCli(['forget', '--match', truth.caller.phoneInternational, '--dry-run'], envFor(db));
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(lines.map((l) => l[0]).sort()).toEqual([...ids].sort());
    for (const l of lines) {
      expect(l[1]).toBe(sim.space);
      expect(l[2]).toMatch(/Z$/);
      expect(Date.parse(l[2]!)).toBe(Date.parse(sim.dataset.record(l[0]!)!.summary.started_at!));
    }
    expect(result.stdout + result.stderr).not.toContain(truth.caller.phoneInternational);
    expect(result.stderr).toContain('nothing was changed');
    expect(sha(db)).toBe(hash);
  }, 300_000);
});

describe('forget: bad input', () => {
  const cases: [string, string[], RegExp][] = [
    ['no selector', [], /^convoduck: forget needs a selector — /],
    ['an unknown id', ['--id', 'c_no_such_conversation'], /^convoduck: forget: no conversation "c_no_such_conversation" .* — check the id/],
    ['a match that is no phone or e-mail', ['--match', 'Müller'], /^convoduck: --match "Müller" is neither a phone number nor an e-mail address — /],
  ];
  for (const [what, args, message] of cases) {
    it(`${what}: exit 2, one line, the database unchanged`, async () => {
      const db = freshCopy();
      const hash = sha(db);
      const result = await runCli(['forget', ...args], envFor(db));
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(sha(db)).toBe(hash);
    }, 300_000);
  }
});

describe('the erasure covers the schema', () => {
  it('every table with a conversation_id column, and every table of conversations by id, is erased from', async () => {
    const db = freshCopy();
    const columns = await Database.with(
      db,
      (d) => d.all<{ table_name: string; column_name: string }>(
        // tables only: a view (conversations_named) holds no rows of its own to erase
        `SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = current_database()
           AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database())
           AND (column_name = 'conversation_id' OR (column_name = 'id' AND table_name LIKE '%conversation%'))`,
      ),
      { readOnly: true },
    );
    const covered = new Set(CONVERSATION_ROW_TABLES.map(([t, c]) => `${t}.${c}`));
    for (const c of columns) expect(covered.has(`${c.table_name}.${c.column_name}`), `${c.table_name}.${c.column_name}`).toBe(true);
  }, 300_000);
});
