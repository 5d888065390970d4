// The tables that grow with every conversation have no PRIMARY KEY (its index grew a sync's memory
// with the database): the writes keep them one row per id, and derive in a batch exactly what
// `rebuild` derives from everything stored. A database of schema 4 (with the keys) upgrades on
// open and loses nothing.
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { generateDataset } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { rebuild } from '../src/store/derive.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { startRun, type RunCounters } from '../src/store/sync-runs.js';
import { fetchedDetail, saveDetails, saveListPage, type FetchedDetail } from '../src/store/writes.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys, expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('one-row-per-id');

const DERIVED = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits'] as const;
const BIG = ['raw_listed_conversations', 'raw_conversations', 'conversations'] as const;
/** The tables schema 5 copies (the child tables for their layout only). */
const COPIED = [...BIG, 'transcript_turns', 'tool_calls', 'node_visits'] as const;
const KEYS = `SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name IN (${BIG.map((t) => `'${t}'`).join(', ')}) ORDER BY ALL`;
const COUNTERS: RunCounters = { requests: 0, throttled: 0, retries: 0, conversationsListed: 0, detailsFetched: 0, detailsCoerced: 0, detailsSetAside: 0, conversationsDeleted: 0, errors: 0 };

/** Every row of the derived tables, in a stable order, as JSON-safe values. */
async function derivedRows(db: Database): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of DERIVED) {
    const key = table === 'conversations' ? 'id' : 'conversation_id, seq';
    out[table] = await db.allJson(`SELECT * FROM ${table} ORDER BY ${key}`);
  }
  return out;
}

/** What `rebuild` derives from the raw rows stored in `dbPath` (on a copy). */
async function rebuilt(dbPath: string): Promise<Record<string, unknown[]>> {
  const copy = `${dbPath}.rebuilt`;
  copyFileSync(dbPath, copy);
  return Database.with(copy, async (db) => {
    await rebuild(db);
    return derivedRows(db);
  });
}

describe('batch writes without a primary key', () => {
  it('derive what rebuild derives, one row per id, whichever side wins', async () => {
    const ds = generateDataset({ seed: 41, conversations: 40, now: new Date('2026-11-20T12:00:00Z') });
    const space = ds.space.slug;
    const ids = ds.records.map((r) => r.id);
    // a list entry says where it came from, so the conversations row shows which side won
    const entry = (id: string) => ({ id, body: JSON.stringify({ ...ds.record(id)!.summary, summary: 'from the list' }) });
    const detail = (id: string, at: string, invalidReason: string | null = null): FetchedDetail =>
      fetchedDetail(id, new Date(at), JSON.stringify({ data: invalidReason ? { id } : ds.detail(id) }));
    const dbPath = tempDb();
    await Database.with(dbPath, async (db) => {
      const run = await startRun(db, new Date('2026-11-20T12:00:00Z'), space, null, new Date('2026-11-20T12:00:00Z'));
      // listed at 12:00, an id twice on a page (the later one counts)
      await saveListPage(db, space, new Date('2026-11-20T12:00:00Z'), [...ids.slice(0, 30).map(entry), entry(ids[0]!)]);
      // details at 12:05: usable, an unusable one (the list entry stays), an id twice in the batch
      await saveDetails(
        db,
        space,
        [...ids.slice(0, 10).map((id) => detail(id, '2026-11-20T12:05:00Z')), detail(ids[10]!, '2026-11-20T12:05:00Z', 'no id'), detail(ids[1]!, '2026-11-20T12:05:00Z')],
        [],
        run,
        COUNTERS,
      );
      // listed again at 12:03 (a clock behind the fetch): the stored details of 0..9 stay the newer
      await saveListPage(db, space, new Date('2026-11-20T12:03:00Z'), ids.slice(0, 20).map(entry));
      // details fetched at 11:50, before their listing: the list entries win; 0..4 fetched again
      await saveDetails(db, space, [...ids.slice(15, 25), ...ids.slice(0, 5)].map((id) => detail(id, '2026-11-20T11:50:00Z')), [], run, COUNTERS);
      // a detail of a conversation never listed, and new list entries
      await saveDetails(db, space, [detail(ids[35]!, '2026-11-20T12:06:00Z')], [], run, COUNTERS);
      await saveListPage(db, space, new Date('2026-11-20T12:10:00Z'), ids.slice(28, 34).map(entry));
    });

    const { rows, counts } = await Database.with(dbPath, async (db) => {
      await expectNoDuplicateKeys(db);
      const counts = await db.one<Record<string, number>>(
        `SELECT (SELECT count(*) FROM raw_listed_conversations)::INTEGER AS listed, (SELECT count(*) FROM raw_conversations)::INTEGER AS details,
                (SELECT count(*) FROM conversations)::INTEGER AS conversations,
                (SELECT count(*) FROM conversations WHERE detail_fetched_at IS NULL)::INTEGER AS without_detail,
                (SELECT count(*) FROM conversations WHERE listed_at IS NULL)::INTEGER AS unlisted`,
      );
      return { rows: await derivedRows(db), counts };
    });
    expect(counts).toEqual({ listed: 34, details: 22, conversations: 35, without_detail: 35 - 21, unlisted: 1 });
    expect(rows).toEqual(await rebuilt(dbPath));
    // each side won where it was newer: the 12:05 details over the 12:03 listing, the listings over
    // the 11:50 details, the list entry over an unusable detail; a detail alone where never listed
    const summary = new Map((rows.conversations as { id: string; summary: string | null }[]).map((c) => [c.id, c.summary]));
    const fromList = (i: number) => summary.get(ids[i]!) === 'from the list';
    expect([0, 4, 10, 15, 20, 24, 33].map(fromList)).toEqual([true, true, true, true, true, true, true]);
    expect([5, 9, 35].map(fromList)).toEqual([false, false, false]);
  });
});

describe('schema upgrade to 5', () => {
  it('drops the primary keys of a schema 4 database on open, nothing lost, and syncs on from it', async () => {
    const sim = await simulator({ seed: 43, conversations: 400, rateLimit: 100_000 });
    const dbPath = tempDb();
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    const dump = (db: Database) =>
      Promise.all(COPIED.map((t) => db.allJson(`SELECT * FROM ${t} ORDER BY ${t.startsWith('raw') || t === 'conversations' ? 'id' : 'conversation_id, seq'}`)));
    const constraints = (db: Database) =>
      db.all(
        `SELECT table_name, constraint_type, constraint_text FROM duckdb_constraints()
         WHERE table_name IN (${COPIED.map((t) => `'${t}'`).join(', ')}) ORDER BY ALL`,
      );
    const fresh = await Database.with(tempDb(), constraints);
    expect(fresh.length).toBeGreaterThan(0);

    // What schema 4 looked like: the same tables with PRIMARY KEY (id).
    const before = await Database.with(dbPath, async (db) => {
      for (const table of BIG) {
        await db.run(`CREATE TABLE ${table}_keyed AS SELECT * FROM ${table}`);
        const columns = await db.all<{ column_name: string; data_type: string }>(
          `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND database_name = current_database() ORDER BY column_index`,
          [`${table}_keyed`],
        );
        await db.run(`DROP TABLE ${table}`);
        await db.run(
          `CREATE TABLE ${table} (${columns.map((c) => `${c.column_name} ${c.data_type}${c.column_name === 'id' ? ' PRIMARY KEY' : ''}`).join(', ')})`,
        );
        await db.run(`INSERT INTO ${table} SELECT * FROM ${table}_keyed`);
        await db.run(`DROP TABLE ${table}_keyed`);
      }
      await db.run(`UPDATE convoduck_meta SET value = '4' WHERE key = 'schema_version'`);
      return dump(db);
    });
    // (read without convoduck, whose opening would upgrade the file)
    const raw = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
    const conn = await raw.connect();
    const keyed = (await conn.runAndReadAll(KEYS)).getRowObjectsJS().map((k) => k.table_name);
    conn.closeSync();
    raw.closeSync();
    expect(keyed).toEqual([...BIG].sort());

    // A read-only command upgrades the file first.
    const status = await runCli(['status', '--db', dbPath, '--json']);
    expect(status.code, status.stderr).toBe(0);
    const after = await Database.with(dbPath, async (db) => {
      expect(await db.all(KEYS)).toEqual([]);
      expect(await constraints(db)).toEqual(fresh);
      const version = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
      expect(version?.value).toBe(String(SCHEMA_VERSION));
      return dump(db);
    });
    expect(after).toEqual(before);

    sim.finishOpenConversations();
    sim.addConversations(50);
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(second.status).toBe('ok');
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  });
});
