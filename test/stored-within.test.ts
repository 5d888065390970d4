// A crawl's detail writes look for the stored rows of their ids only between the times the plan
// read (storedAt): the tables have no index, and reading every stored id at every batch grew a
// sync's memory with the database. These tests hold the bound to exactness: whatever was stored,
// and however precisely its times were written, a bounded write replaces it and leaves one row per id.
import { describe, expect, it } from 'vitest';
import { generateDataset } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { rebuild } from '../src/store/derive.js';
import { pendingDetails } from '../src/store/pending-details.js';
import { startRun, type RunCounters } from '../src/store/sync-runs.js';
import { fetchedDetail, saveDetails, saveListPage, storedWithin, type FetchedDetail } from '../src/store/writes.js';
import { scratch } from './support/scratch.js';
import { expectNoDuplicateKeys } from './support/store-vs-simulator.js';

const { tempDb } = scratch('stored-within');
const COUNTERS: RunCounters = { requests: 0, throttled: 0, retries: 0, conversationsListed: 0, detailsFetched: 0, detailsCoerced: 0, detailsSetAside: 0, conversationsDeleted: 0, errors: 0 };
const DERIVED = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits'] as const;

async function derivedRows(db: Database): Promise<unknown[][]> {
  return Promise.all(
    DERIVED.map((t) => db.allJson(`SELECT * FROM ${t} ORDER BY ${t === 'conversations' ? 'id' : 'conversation_id, seq'}`)),
  );
}

describe('storedWithin', () => {
  const detail = (storedAt?: FetchedDetail['storedAt']): FetchedDetail => fetchedDetail('x', new Date(0), '{}', storedAt);

  it('reads every row for a detail without storedAt, none where nothing is stored, else a millisecond around the times', () => {
    const at = Date.parse('2026-11-20T12:00:00.000Z');
    expect(storedWithin('fetched_at', [detail({ listedAt: at, fetchedAt: at }), detail()], (s) => s.fetchedAt)).toEqual({ sql: 'true', params: [] });
    expect(storedWithin('fetched_at', [detail({ listedAt: at, fetchedAt: null })], (s) => s.fetchedAt)).toEqual({ sql: 'false', params: [] });
    expect(storedWithin('listed_at', [detail({ listedAt: at + 5000, fetchedAt: null }), detail({ listedAt: at, fetchedAt: null })], (s) => s.listedAt)).toEqual({
      sql: 'listed_at BETWEEN $1::TIMESTAMPTZ AND $2::TIMESTAMPTZ',
      params: ['2026-11-20T11:59:59.999Z', '2026-11-20T12:00:05.001Z'],
    });
  });
});

describe('detail writes bounded by where the plan saw the rows', () => {
  it('replace rows stored by earlier runs (times in microseconds too), one row per id, what rebuild derives', async () => {
    const ds = generateDataset({ seed: 47, conversations: 30, now: new Date('2026-11-20T12:00:00Z') });
    const space = ds.space.slug;
    const ids = ds.records.map((r) => r.id);
    const entry = (id: string) => ({ id, body: JSON.stringify(ds.record(id)!.summary) });
    // an unfinished detail is fetched again by the next run: its body without ended_at and outcome
    const detail = (id: string, at: string, final: boolean): FetchedDetail => {
      const data = { ...ds.detail(id) } as Record<string, unknown>;
      if (!final) delete data.outcome;
      return fetchedDetail(id, new Date(at), JSON.stringify({ data }));
    };
    const dbPath = tempDb();

    // Earlier runs: 0..19 listed on one day, 20..29 on the next; 0..9 fetched unfinished.
    await Database.with(dbPath, async (db) => {
      const run = await startRun(db, new Date('2026-11-18T00:00:00Z'), space, null, new Date('2026-11-18T00:00:00Z'));
      await saveListPage(db, space, new Date('2026-11-18T08:00:00Z'), ids.slice(0, 20).map(entry));
      await saveDetails(db, space, ids.slice(0, 10).map((id) => detail(id, '2026-11-18T09:00:00Z', false)), [], run, COUNTERS);
      await saveListPage(db, space, new Date('2026-11-19T08:00:00Z'), ids.slice(20).map(entry));
      // times another writer stored with microseconds: the plan reads them back in milliseconds
      await db.run(`UPDATE raw_listed_conversations SET listed_at = listed_at + INTERVAL 654 MICROSECOND`);
      await db.run(`UPDATE raw_conversations SET fetched_at = fetched_at + INTERVAL 321 MICROSECOND`);
      await rebuild(db);
    });

    // This run: the plan, then every pending detail written in two batches that carry where their rows were.
    await Database.with(dbPath, async (db) => {
      const pending = await pendingDetails(db, { space });
      expect([...pending.ids].sort()).toEqual([...ids].sort()); // 0..9 unfinished, 10..29 never fetched
      const run = await startRun(db, new Date('2026-11-20T12:00:00Z'), space, null, new Date('2026-11-20T12:00:00Z'));
      const fetched = pending.ids.map((id, i) => ({ ...detail(id, '2026-11-20T12:01:00Z', true), storedAt: pending.storedAt(i) }));
      const refetched = fetched.filter((d) => ids.indexOf(d.id) < 10);
      expect(refetched.every((d) => d.storedAt.fetchedAt !== null)).toBe(true);
      await saveDetails(db, space, fetched.slice(0, 15), [], run, COUNTERS);
      await saveDetails(db, space, fetched.slice(15), [], run, COUNTERS);
    });

    await Database.with(dbPath, async (db) => {
      await expectNoDuplicateKeys(db);
      const counts = await db.one<Record<string, number>>(
        `SELECT (SELECT count(*) FROM raw_listed_conversations)::INTEGER AS listed, (SELECT count(*) FROM raw_conversations)::INTEGER AS details,
                (SELECT count(*) FROM conversations)::INTEGER AS conversations,
                (SELECT count(*) FROM conversations WHERE listed_at IS NOT NULL AND detail_fetched_at = TIMESTAMPTZ '2026-11-20 12:01:00+00')::INTEGER AS this_run`,
      );
      expect(counts).toEqual({ listed: 30, details: 30, conversations: 30, this_run: 30 });
      const written = await derivedRows(db);
      await rebuild(db);
      expect(written).toEqual(await derivedRows(db));
    });
  });
});
