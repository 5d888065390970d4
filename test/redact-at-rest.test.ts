// `sync --redact-at-rest` over real HTTP and a real DuckDB file: no phone number, e-mail address,
// card number or IBAN of the simulator's truth, and no session_ref, anywhere in the file's bytes
// or any table, nor in a report or an export; every conversation and row count as a clear sync
// has them; `rebuild` re-derives the same redacted rows; a run without the setting (or another
// key, or a missing key) on that database exits 2 with one line and leaves the file as it was.
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REWRITE_PENDING } from '../src/store/rewrite-file.js';
import { keyedHash } from '../src/redact/index.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { folderText } from './support/folder-text.js';
import { fileBytes, foundIn, snapshotTables, type Snapshot } from './support/db-snapshot.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('redact-at-rest');
const KEY = 'rest'.repeat(4) + '0123456789abcdef0123456789abcdef';
const COUNTED = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'raw_conversations', 'raw_listed_conversations', 'detail_drift'];

let sim: Simulator;
let clearDb: string;
let restDb: string;
/** every personal datum (names aside) of the truth, in the forms the conversations hold it */
let needles: string[];
/** the conversations' session_refs, by id */
let refs: Map<string, string>;
let copies = 0;

const sha = (path: string) => createHash('sha256').update(fileBytes(path)).digest('hex');

function env(dbPath: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath, CONVODUCK_REDACT_KEY: KEY, ...extra };
}

async function cli(args: string[], extra: NodeJS.ProcessEnv): Promise<string> {
  const r = await runCli(args, extra);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toContain(KEY);
  return r.stdout;
}

function copyOf(path: string): string {
  const copy = join(fileDir(), `copy-${++copies}.duckdb`);
  copyFileSync(path, copy);
  return copy;
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 2703, conversations: 150, rateLimit: 100_000 });
  clearDb = join(fileDir(), 'clear.duckdb');
  restDb = join(fileDir(), 'rest.duckdb');
  await cli(['sync'], env(clearDb));
  await cli(['sync', '--redact-at-rest'], env(restDb));
  // every commit written into the file itself, the WAL empty
  for (const path of [clearDb, restDb]) await Database.with(path, (db) => db.run('CHECKPOINT'));
  const data = sim.dataset.records.flatMap((r) => sim.dataset.personalData(r.id)?.found ?? []);
  needles = [...new Set(data.filter((d) => d.kind !== 'name').map((d) => d.value))];
  refs = new Map(sim.dataset.records.flatMap((r) => {
    const ref = sim.dataset.detail(r.id)?.session_ref;
    return typeof ref === 'string' ? [[r.id, ref] as const] : [];
  }));
  expect(needles.length).toBeGreaterThan(50);
  expect(refs.size).toBeGreaterThan(10);
}, 300_000);

afterAll(async () => {
  await sim.close();
});

/** What must be nowhere: each datum and session_ref, as written and as a JSON string holds it, and the key. */
function forbidden(): string[] {
  const plain = [...needles, ...refs.values()];
  return [...new Set([...plain, ...plain.map((n) => JSON.stringify(n).slice(1, -1)), KEY])];
}

function leakedRows(snapshot: Snapshot): string[] {
  const all = forbidden();
  return [...snapshot].flatMap(([table, { rows }]) => rows.flatMap((row) => all.filter((n) => row.includes(n)).map((n) => `${table}: ${n}`)));
}

async function counts(path: string): Promise<Record<string, number>> {
  return Database.with(path, async (db) => {
    const out: Record<string, number> = {};
    for (const t of COUNTED) out[t] = (await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${t}`))!.n;
    return out;
  }, { readOnly: true });
}

describe('sync --redact-at-rest', () => {
  it('leaves no datum of the truth in the file bytes or any table, with every conversation and row there', async () => {
    // the check can see: the clear sync's file and tables hold the data
    expect(foundIn(fileBytes(clearDb), needles).length).toBeGreaterThan(0);
    expect(leakedRows(await snapshotTables(clearDb)).length).toBeGreaterThan(0);

    expect(foundIn(fileBytes(restDb), forbidden())).toEqual([]);
    const tables = await snapshotTables(restDb);
    expect(leakedRows(tables)).toEqual([]);
    expect(tables.get('transcript_turns')!.rows.join('\n')).toMatch(/\[(phone|email|card|iban)\]/);
    expect(await counts(restDb)).toEqual(await counts(clearDb));

    await Database.with(restDb, async (db) => {
      // session_ref is the keyed hash of the caller's: joins and repeat counts work as before
      const rows = await db.all<{ id: string; session_ref: string }>(`SELECT id, session_ref FROM conversations WHERE session_ref IS NOT NULL`);
      expect(rows.length).toBe(refs.size);
      for (const r of rows) expect(r.session_ref).toBe(keyedHash(refs.get(r.id)!, KEY));
      const states = `SELECT detail_state, count(*)::INTEGER AS n FROM raw_conversations GROUP BY ALL ORDER BY ALL`;
      expect(await db.all(states)).toEqual(await Database.with(clearDb, (c) => c.all(states), { readOnly: true }));
      const recorded = await db.all<{ space: string; since: Date; run_id: number; key_check: string }>(`SELECT * FROM redaction_at_rest`);
      expect(recorded.map((r) => [r.space, r.run_id])).toEqual([[sim.space, 1]]);
      expect(recorded[0]!.key_check).not.toContain(KEY);
    }, { readOnly: true });
  }, 300_000);

  it('reports (CSV) and exports (Parquet) of it hold none either, with the rows a clear sync gives', async () => {
    const outputs = async (db: string, label: string) => {
      const reports = fileDir(`${label}-csv`);
      await cli(['report', '--out', reports], env(db));
      const exported = join(fileDir(`${label}-export`), 'out');
      await cli(['export', '--out', exported], env(db));
      return { reports: await folderText(reports), exported: await folderText(exported), list: readFileSync(join(reports, 'conversation_list.csv'), 'utf8') };
    };
    const clear = await outputs(clearDb, 'clear');
    const rest = await outputs(copyOf(restDb), 'rest');
    expect(foundIn(Buffer.from(clear.reports + clear.exported), needles).length).toBeGreaterThan(0);
    expect(foundIn(Buffer.from(rest.reports + rest.exported), forbidden())).toEqual([]);
    expect(rest.list.split('\n').length).toBe(clear.list.split('\n').length);
  }, 300_000);

  it('rebuild re-derives the same redacted tables from the redacted raw bodies', async () => {
    const db = copyOf(restDb);
    const before = await snapshotTables(db);
    await Database.with(db, (d) => d.run(`DELETE FROM transcript_turns; UPDATE conversations SET summary = 'tampered'`));
    const result = await runCli(['rebuild', '--db', db]);
    expect(result.code, result.stderr).toBe(0);
    const after = await snapshotTables(db);
    for (const t of ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'detail_drift', 'raw_conversations']) {
      expect(after.get(t)!.rows, t).toEqual(before.get(t)!.rows);
    }
    expect(leakedRows(after)).toEqual([]);
  }, 300_000);

});

describe('a run that does not fit the database: exit 2, one line, the file unchanged', () => {
  const refused = async (db: string, args: string[], extra: NodeJS.ProcessEnv, message: RegExp) => {
    const hash = sha(db);
    const requests = sim.requestLog.length;
    const r = await runCli(args, env(db, extra));
    expect(r.code, r.stderr).toBe(2);
    // one line says why (progress lines of the run's first request may come before it, on a slow machine)
    const said = r.stderr.trimEnd().split('\n').filter((l) => l.startsWith('convoduck: '));
    expect(said, r.stderr).toHaveLength(1);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^convoduck: [^\n]+ — [^\n]+$/);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain(KEY);
    expect(sha(db)).toBe(hash);
    return sim.requestLog.length - requests;
  };

  it('without the setting, with it switched off, or with another key, on a database synced with it', async () => {
    const db = copyOf(restDb);
    const off = /^convoduck: space \S+ in .* is redacted at rest \(since [^)]+\) and this run is not — sync it with --redact-at-rest/m;
    await refused(db, ['sync'], {}, off);
    await refused(db, ['sync', '--full'], { CONVODUCK_REDACT_AT_REST: '0' }, off);
    await refused(db, ['sync', '--no-redact-at-rest'], { CONVODUCK_REDACT_AT_REST: '1' }, off);
    await refused(db, ['sync', '--redact-at-rest'], { CONVODUCK_REDACT_KEY: 'z'.repeat(40) }, /was redacted at rest with another key — set CONVODUCK_REDACT_KEY/);
  }, 300_000);

  it('with the setting on and no key: before any request', async () => {
    const db = copyOf(restDb);
    const sent = await refused(db, ['sync', '--redact-at-rest'], { CONVODUCK_REDACT_KEY: '' }, /redaction needs a key and none is set/);
    expect(sent).toBe(0);
  }, 300_000);

  it('with a config file: redact_at_rest per [[space]]', async () => {
    const db = copyOf(restDb);
    const config = (value: string) => {
      const path = join(fileDir(), `spaces-${value}.toml`);
      writeFileSync(path, `[[space]]\nbase_url = "${sim.baseUrl}"\napi_key_env = "SPACE_KEY"\nredact_at_rest = ${value}\n`);
      return path;
    };
    const spaceEnv = { SPACE_KEY: sim.apiKey, CONVODUCK_BASE_URL: '', CONVODUCK_API_KEY: '' };
    await refused(db, ['sync', '--config', config('false')], spaceEnv, /is redacted at rest .* and this run is not/);
    // the space's own setting wins over the flag
    await refused(db, ['sync', '--config', config('false'), '--redact-at-rest'], spaceEnv, /is redacted at rest .* and this run is not/);
    await cli(['sync', '--config', config('true')], env(db, spaceEnv));
    expect(foundIn(fileBytes(db), needles)).toEqual([]);
  }, 300_000);
});

describe('sync --redact-at-rest on a database holding the space in clear text', () => {
  it('turned on for a space stored in clear text: what is stored is redacted and the file rewritten, no clear byte left', async () => {
    const db = copyOf(clearDb);
    const inode = statSync(db).ino;
    const r = await runCli(['sync', '--redact-at-rest'], env(db));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^convoduck: space ${sim.space} held \\d+ conversation bodies in clear text: redacted them at rest and rewrote `, 'm'));
    expect(foundIn(fileBytes(db), forbidden())).toEqual([]);
    // compressed, clear bytes may hide from a search of the file: that the file was replaced by a
    // fresh one (a sync writes in place) is what shows the rewrite happened
    expect(statSync(db).ino).not.toBe(inode);
    const [after, rest] = [await snapshotTables(db), await snapshotTables(restDb)];
    expect(leakedRows(after)).toEqual([]);
    // the rows a sync with it from the start stores
    for (const t of ['transcript_turns', 'tool_calls', 'node_visits', 'detail_drift']) expect(after.get(t)!.rows, t).toEqual(rest.get(t)!.rows);
    const fields = `SELECT id, session_ref, page_url, summary, outcome FROM conversations ORDER BY id`;
    expect(await Database.with(db, (d) => d.all(fields), { readOnly: true })).toEqual(await Database.with(restDb, (d) => d.all(fields), { readOnly: true }));
    expect(await counts(db)).toEqual(await counts(clearDb));
    // and from then on it is recorded: a run without it is refused
    const again = await runCli(['sync'], env(db));
    expect(again.code).toBe(2);
    // a rewrite left pending (a crash after the commit) is done by the next run with it
    const pending = `SELECT count(*)::INTEGER AS n FROM convoduck_meta WHERE key = '${REWRITE_PENDING}'`;
    await Database.with(db, (d) => d.run(`INSERT INTO convoduck_meta VALUES ('${REWRITE_PENDING}', '2026-01-01T00:00:00Z')`));
    await cli(['sync', '--redact-at-rest'], env(db));
    expect(await Database.with(db, (d) => d.all(pending), { readOnly: true })).toEqual([{ n: 0 }]);
  }, 300_000);
});

// last: it adds conversations to the simulator
describe('later runs', () => {
  it('a later run with it and the same key syncs on; forget --session-ref finds a caller by the value the API sent', async () => {
    const db = copyOf(restDb);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    sim.addConversations(20, { open: false });
    await cli(['sync', '--redact-at-rest'], env(db));
    await cli(['sync'], env(db, { CONVODUCK_REDACT_AT_REST: '1' }));
    const data = sim.dataset.records.flatMap((r) => sim.dataset.personalData(r.id)?.found ?? []).filter((d) => d.kind !== 'name').map((d) => d.value);
    expect(foundIn(fileBytes(db), data)).toEqual([]);
    expect((await counts(db)).conversations).toBe(sim.dataset.records.length);

    const [id, ref] = [...refs][0]!;
    const noKey = await runCli(['forget', '--session-ref', ref], { CONVODUCK_DB: db });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^convoduck: --session-ref: space \S+ is redacted at rest, .* — set CONVODUCK_REDACT_KEY .*\n$/);
    const out = await cli(['forget', '--session-ref', ref], env(db));
    expect(out.trim().split('\n').map((l) => l.split('\t')[0])).toEqual([id]);
    expect(out).not.toContain(ref);
  }, 300_000);
});
