// Everything the crawler writes. Each function is one transaction, so a run killed at any
// moment leaves the database at the end of a whole page or batch, never halfway through one.

import type { Database } from './database.js';
import { DETAIL_IS_FINAL } from './schema.js';
import { CHILD_TABLES, idParams, inIds, insertChildRows, insertConversationRows, LISTED_WINS } from './derive.js';
import { saveSpaceConfig } from './space-config.js';

export interface ListedConversation {
  id: string;
  /** the list entry's JSON text */
  body: string;
}

export interface FetchedDetail {
  id: string;
  fetchedAt: Date;
  /** the response body's JSON text, exactly as received */
  body: string;
  /** set when the body is valid JSON but not a usable conversation */
  invalidReason: string | null;
  /** where its conversation's rows were when the crawl planned the fetch; without it, every stored id is read */
  storedAt?: StoredAt;
}

/**
 * When a conversation's stored rows were written (ms): its list entry's listed_at, which its
 * conversations row carries too, and its stored detail's fetched_at (null when none is stored).
 * The tables have no index (schema.ts), but DuckDB keeps each row group's least and greatest
 * time, and rows are appended as they are written: a write bounded by these times reads the few
 * row groups that hold them rather than every stored id (+50 MB per write at 1,000,000 stored).
 */
export interface StoredAt {
  listedAt: number;
  fetchedAt: number | null;
}

/**
 * SQL over `column` that holds for every stored row of the details' ids, from their `storedAt`
 * times (`pick`): `false` when none is stored, `true` (every row) when a detail has no storedAt.
 */
export function storedWithin(column: string, details: readonly FetchedDetail[], pick: (at: StoredAt) => number | null): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (const d of details) {
    if (!d.storedAt) return 'true';
    const t = pick(d.storedAt);
    if (t === null) continue;
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  if (lo > hi) return 'false';
  // a millisecond either side: DuckDB keeps microseconds, the times read back into JS milliseconds
  const at = (ms: number) => `TIMESTAMPTZ '${new Date(ms).toISOString()}'`;
  return `${column} BETWEEN ${at(lo - 1)} AND ${at(hi + 1)}`;
}

export interface DimensionRecord {
  id: string;
  body: string;
}

export interface SyncErrorRecord {
  stage: string;
  conversationId: string | null;
  httpStatus: number | null;
  message: string;
  occurredAt: Date;
}

/** Loads rows of strings into a fresh temp table through DuckDB's appender (the fast path). */
async function stage(db: Database, name: string, columns: string[], rows: (string | null)[][]): Promise<void> {
  await db.run(`CREATE OR REPLACE TEMP TABLE ${name} (${columns.map((c) => `${c} VARCHAR`).join(', ')})`);
  const appender = await db.connection.createAppender(name);
  try {
    for (const row of rows) {
      for (const value of row) {
        if (value === null) appender.appendNull();
        else appender.appendVarchar(value);
      }
      appender.endRow();
    }
  } finally {
    appender.closeSync();
  }
}

/** The items of a batch once each, the last of each id winning (as a later response would). */
function lastPerId<T extends { id: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((item) => [item.id, item])).values()];
}

/**
 * The stored side of a batch's conversations rows (its list entries, or its usable details) into
 * a temp table, read cheaply: the small columns of the batch's ids, and the body only of the few
 * ids whose stored side wins (`wins`: a query of ids over _batch_listed l and _batch_details d).
 * The tables have no index (see schema.ts): reading bodies by id decompresses whole vectors of
 * them, a cost that would grow with the database at every batch. `stored.where` narrows where to look.
 */
async function readStoredSide(
  db: Database,
  into: '_batch_listed' | '_batch_details',
  stored: { table: string; columns: string; where: string },
  ids: readonly string[],
  wins: string,
): Promise<void> {
  const from = `${stored.table} WHERE ${stored.where} AND`;
  await db.run(`CREATE OR REPLACE TEMP TABLE ${into} AS SELECT ${stored.columns}, NULL::JSON AS body FROM ${from} ${inIds(ids, 'id')}`, idParams(ids));
  const needed = (await db.all<{ id: string }>(wins)).map((r) => r.id);
  if (needed.length === 0) return;
  await db.run(
    `UPDATE ${into} SET body = stored.body
     FROM (SELECT id, body FROM ${from} ${inIds(needed, 'id')}) stored
     WHERE ${into}.id = stored.id`,
    idParams(needed),
  );
}

export async function saveListPage(
  db: Database,
  space: string,
  listedAt: Date,
  entries: ListedConversation[],
): Promise<void> {
  if (entries.length === 0) return;
  const page = lastPerId(entries);
  await stage(
    db,
    '_listed',
    ['id', 'body'],
    page.map((e) => [e.id, e.body]),
  );
  const ids = page.map((e) => e.id);
  await db.transaction(async () => {
    await db.run(`DELETE FROM raw_listed_conversations WHERE ${inIds(ids, 'id')}`, idParams(ids));
    await db.run(
      `CREATE OR REPLACE TEMP TABLE _batch_listed AS SELECT id, ?::VARCHAR AS space, ?::TIMESTAMPTZ AS listed_at, body::JSON AS body FROM _listed`,
      [space, listedAt.toISOString()],
    );
    await db.run(`INSERT INTO raw_listed_conversations SELECT id, space, listed_at, body FROM _batch_listed`);
    // A stored detail wins over the page only when it was fetched at or after this listing.
    await readStoredSide(
      db,
      '_batch_details',
      { table: 'raw_conversations', columns: 'id, space, fetched_at', where: 'invalid_reason IS NULL' },
      ids,
      `SELECT d.id FROM _batch_details d LEFT JOIN _batch_listed l USING (id) WHERE NOT ${LISTED_WINS}`,
    );
    await replaceConversationRows(db, ids, 'true');
  });
}

/**
 * Deletes the batch's conversations rows (those where `within` holds) and derives them again
 * from _batch_listed and _batch_details.
 */
async function replaceConversationRows(db: Database, ids: readonly string[], within: string): Promise<void> {
  await db.run(`DELETE FROM conversations WHERE ${within} AND ${inIds(ids, 'id')}`, idParams(ids));
  await insertConversationRows(db, { listed: 'SELECT * FROM _batch_listed', details: 'SELECT * FROM _batch_details' });
}

/** One crawl's flush: details of one space, and its run's errors and counters so far. */
export interface DetailBatch {
  space: string;
  details: FetchedDetail[];
  errors: SyncErrorRecord[];
  runId: number;
  counters: RunCounters;
}

export async function saveDetails(
  db: Database,
  space: string,
  details: FetchedDetail[],
  errors: SyncErrorRecord[],
  runId: number,
  counters: RunCounters,
): Promise<void> {
  await saveDetailBatches(db, [{ space, details, errors, runId, counters }]);
}

/**
 * Several flushes (of one space or several) in one transaction: the id lookups, each a scan of
 * the stored ids, are shared by all of them (many keys each flushing a few details every 2 s
 * would otherwise pay them per flush).
 */
export async function saveDetailBatches(db: Database, batches: readonly DetailBatch[]): Promise<void> {
  const all = lastPerId(batches.flatMap((b) => b.details.map((d) => ({ ...d, space: b.space }))));
  await stage(
    db,
    '_details',
    ['id', 'space', 'fetched_at', 'body', 'invalid_reason'],
    all.map((d) => [d.id, d.space, d.fetchedAt.toISOString(), d.body, d.invalidReason]),
  );
  const ids = all.map((d) => d.id);
  const listedWithin = storedWithin('listed_at', all, (at) => at.listedAt);
  const fetchedWithin = storedWithin('fetched_at', all, (at) => at.fetchedAt);
  await db.transaction(async () => {
    if (all.length > 0) {
      const replaced = await db.all(`DELETE FROM raw_conversations WHERE ${fetchedWithin} AND ${inIds(ids, 'id')} RETURNING id`, idParams(ids));
      await db.run(
        `INSERT INTO raw_conversations
         SELECT id, space, fetched_at, body, invalid_reason, ${DETAIL_IS_FINAL}
         FROM (SELECT id, space, fetched_at::TIMESTAMPTZ AS fetched_at, body::JSON AS body, invalid_reason FROM _details)`,
      );
      await db.run(
        `CREATE OR REPLACE TEMP TABLE _batch_details AS
         SELECT id, space, fetched_at::TIMESTAMPTZ AS fetched_at, body::JSON AS body FROM _details
         WHERE invalid_reason IS NULL`,
      );
      // The stored list entry wins only where no usable detail came, or it was listed after the fetch.
      await readStoredSide(
        db,
        '_batch_listed',
        { table: 'raw_listed_conversations', columns: 'id, space, listed_at', where: listedWithin },
        ids,
        `SELECT l.id FROM _batch_listed l LEFT JOIN _batch_details d USING (id) WHERE ${LISTED_WINS}`,
      );
      await replaceConversationRows(db, ids, listedWithin);
      // A detail fetched for the first time has no child rows to replace: the delete (a scan of
      // every stored turn) only runs when the batch holds a conversation fetched before.
      if (replaced.length > 0) {
        for (const table of CHILD_TABLES) await db.run(`DELETE FROM ${table} WHERE ${inIds(ids, 'conversation_id')}`, idParams(ids));
      }
      await insertChildRows(db, 'SELECT id, body FROM _batch_details');
    }
    for (const b of batches) {
      await insertErrors(db, b.runId, b.errors);
      await updateRun(db, b.runId, b.counters);
    }
  });
}

async function insertErrors(db: Database, runId: number, errors: SyncErrorRecord[]): Promise<void> {
  if (errors.length === 0) return;
  await stage(
    db,
    '_errors',
    ['occurred_at', 'stage', 'conversation_id', 'http_status', 'message'],
    errors.map((e) => [
      e.occurredAt.toISOString(),
      e.stage,
      e.conversationId,
      e.httpStatus === null ? null : String(e.httpStatus),
      e.message,
    ]),
  );
  await db.run(
    `INSERT INTO sync_errors
     SELECT ?, occurred_at::TIMESTAMPTZ, stage, conversation_id, http_status::INTEGER, message FROM _errors`,
    [runId],
  );
}

export async function recordErrors(db: Database, runId: number, errors: SyncErrorRecord[]): Promise<void> {
  await db.transaction(() => insertErrors(db, runId, errors));
}

/** Replaces the agents and tools tables' rows for the records just listed (see space-config.ts). */
export async function saveDimensions(
  db: Database,
  space: string,
  fetchedAt: Date,
  agents: DimensionRecord[],
  tools: DimensionRecord[],
): Promise<void> {
  await saveSpaceConfig(db, { space, fetchedAt, agents, tools, connections: [], details: [] });
}

export interface RunCounters {
  requests: number;
  throttled: number;
  retries: number;
  conversationsListed: number;
  detailsFetched: number;
  errors: number;
}

export async function startRun(
  db: Database,
  startedAt: Date,
  space: string,
  windowFrom: Date | null,
  windowTo: Date,
): Promise<number> {
  const row = await db.one<{ run_id: number }>(
    `INSERT INTO sync_runs (run_id, started_at, status, space, window_from, window_to)
     VALUES (nextval('sync_run_ids'), ?::TIMESTAMPTZ, 'running', ?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ)
     RETURNING run_id`,
    [startedAt.toISOString(), space, windowFrom?.toISOString() ?? null, windowTo.toISOString()],
  );
  return Number(row!.run_id);
}

/** The run's counters so far, into its sync_runs row. */
export async function updateRun(db: Database, runId: number, c: RunCounters): Promise<void> {
  await db.run(
    `UPDATE sync_runs SET requests = ?, throttled = ?, retries = ?, conversations_listed = ?,
       details_fetched = ?, errors = ? WHERE run_id = ?`,
    [c.requests, c.throttled, c.retries, c.conversationsListed, c.detailsFetched, c.errors, runId],
  );
}

export async function finishRun(
  db: Database,
  runId: number,
  endedAt: Date,
  status: 'ok' | 'errors' | 'failed' | 'interrupted',
  counters: RunCounters,
  message: string | null,
): Promise<void> {
  await db.transaction(async () => {
    await updateRun(db, runId, counters);
    await db.run(`UPDATE sync_runs SET ended_at = ?::TIMESTAMPTZ, status = ?, message = ? WHERE run_id = ?`, [
      endedAt.toISOString(),
      status,
      message,
      runId,
    ]);
  });
}

export async function getMeta(db: Database, key: string): Promise<string | null> {
  const row = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = ?`, [key]);
  return row?.value ?? null;
}

export async function setMeta(db: Database, key: string, value: string): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO convoduck_meta VALUES (?, ?)`, [key, value]);
}
