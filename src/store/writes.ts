// The conversations the crawler writes: list pages, detail batches, deletions, dimensions (the
// run's own rows are in sync-runs.ts). Each function is one transaction, so a run killed at any
// moment leaves the database at the end of a whole page or batch, never halfway through one.

import type { Database, Params } from './database.js';
import { idParams, inIds, stage } from './batch-sql.js';
import { deleteChildRows, insertChildRows, insertConversationRows, parseOrNull, type ConversationRow } from './derive.js';
import { detailState, normaliseDetail, normaliseDetailText, normaliseSummary, readAsNotUtf8, type NormalisedDetail } from './normalise.js';
import { saveSpaceConfig } from './space-config.js';
import { INLINE_BODY_CHARS, splitText } from './body-parts.js';
import { insertErrors, updateRun, type RunCounters, type SyncErrorRecord } from './sync-runs.js';
import { withoutErased } from './tombstone.js';

export interface ListedConversation {
  id: string;
  /** the list entry's JSON text */
  body: string;
}

export interface FetchedDetail {
  id: string;
  fetchedAt: Date;
  /** the response body exactly as received: its text, or its UTF-8 bytes while a long one waits (see `fetchedDetail`) */
  body: string | Buffer;
  /** the body read by normalise.ts: its rows, or why it is set aside; or, while a long usable one waits, its state alone */
  normalised: NormalisedDetail | DeferredRows;
  /** where its conversation's rows were when the crawl planned the fetch; without it, every stored id is read */
  storedAt?: StoredAt;
}

/** A usable detail's state without its rows, which are read again from its body when it is written. */
export interface DeferredRows {
  usable: true;
  coerced: boolean;
  deferred: true;
  notUtf8: boolean;
  recordingLink: boolean;
}

/** How the crawl read a body: parsed already, and whether its bytes were all UTF-8. */
export interface BodyRead {
  parsed: unknown;
  notUtf8: boolean;
}

/** A detail as it is written: its body as text and its rows read. */
type ReadDetail = FetchedDetail & { body: string; normalised: NormalisedDetail };

/**
 * When a conversation's stored rows were written (ms): its list entry's listed_at, which its
 * conversations row carries too, and its stored detail's fetched_at (null when none is stored).
 * The tables have no index (schema.ts), but DuckDB keeps each row group's least and greatest
 * time, and rows are appended as they are written: a write bounded by these times reads the few
 * row groups that hold them rather than every stored id, so a write's memory does not grow with the store.
 */
export interface StoredAt {
  listedAt: number;
  fetchedAt: number | null;
}

/** A condition on a time column with the values it binds, `$1` and `$2`, before any others. */
export interface TimeRange {
  sql: string;
  params: string[];
}

/**
 * A condition over `column` that holds for every stored row of the details' ids, from their
 * `storedAt` times (`pick`): `false` when none is stored, `true` (every row) when a detail has no storedAt.
 */
export function storedWithin(column: string, details: readonly FetchedDetail[], pick: (at: StoredAt) => number | null): TimeRange {
  let lo = Infinity;
  let hi = -Infinity;
  for (const d of details) {
    if (!d.storedAt) return { sql: 'true', params: [] };
    const t = pick(d.storedAt);
    if (t === null) continue;
    lo = Math.min(lo, t);
    hi = Math.max(hi, t);
  }
  if (lo > hi) return { sql: 'false', params: [] };
  // a millisecond either side: DuckDB keeps microseconds, the times read back into JS milliseconds
  return { sql: `${column} BETWEEN $1::TIMESTAMPTZ AND $2::TIMESTAMPTZ`, params: [new Date(lo - 1).toISOString(), new Date(hi + 1).toISOString()] };
}

/** SQL and parameters of `within` and `column IN ids` together. */
function withinIds(within: TimeRange, ids: readonly string[], column: string): { sql: string; params: Params | undefined } {
  const sql = `${within.sql} AND ${inIds(ids, column, within.params.length + 1)}`;
  const params = [...within.params, ...ids];
  return { sql, params: params.length === 0 ? undefined : params };
}

export interface DimensionRecord {
  id: string;
  body: string;
}

/** The items of a batch once each, the last of each id winning (as a later response would). */
function lastPerId<T extends { id: string }>(items: readonly T[]): T[] {
  return [...new Map(items.map((item) => [item.id, item])).values()];
}

/** Stored detail facts of the given ids: when fetched, whether usable, its state. */
async function storedDetails(db: Database, ids: readonly string[]): Promise<Map<string, { fetchedAt: Date; usable: boolean; state: string | null }>> {
  const rows = await db.all<{ id: string; fetched_at: Date; usable: boolean; detail_state: string | null }>(
    `SELECT id, fetched_at, invalid_reason IS NULL AS usable, detail_state FROM raw_conversations WHERE ${inIds(ids, 'id')}`,
    idParams(ids),
  );
  return new Map(rows.map((r) => [r.id, { fetchedAt: r.fetched_at, usable: r.usable, state: r.detail_state }]));
}

/** When each of the ids was seen deleted at the source (absent: not deleted). */
async function deletedAt(db: Database, ids: readonly string[]): Promise<Map<string, Date>> {
  const rows = await db.all<{ id: string; seen_deleted_at: Date }>(
    `SELECT id, seen_deleted_at FROM deleted_conversations WHERE ${inIds(ids, 'id')}`,
    idParams(ids),
  );
  return new Map(rows.map((r) => [r.id, r.seen_deleted_at]));
}

export async function saveListPage(
  db: Database,
  space: string,
  listedAt: Date,
  entries: ListedConversation[],
): Promise<void> {
  // erased conversations (forget, retention) are never stored again
  const page = await withoutErased(db, lastPerId(entries));
  if (page.length === 0) return;
  await stage(
    db,
    '_listed',
    ['id', 'body'],
    page.map((e) => [e.id, e.body]),
  );
  const ids = page.map((e) => e.id);
  await db.transaction(async () => {
    const details = await storedDetails(db, ids);
    // A detail set aside is fetched again once its list entry changes.
    const setAside = ids.filter((id) => details.get(id)?.usable === false);
    if (setAside.length > 0) {
      await db.run(
        `UPDATE raw_conversations SET listing_changed = true
         WHERE ${inIds(setAside, 'id')} AND id IN (
           SELECT l.id FROM raw_listed_conversations l JOIN _listed n USING (id) WHERE l.body IS DISTINCT FROM n.body)`,
        idParams(setAside),
      );
    }
    await db.run(`DELETE FROM raw_listed_conversations WHERE ${inIds(ids, 'id')}`, idParams(ids));
    await db.run(`INSERT INTO raw_listed_conversations SELECT id, ?, ?::TIMESTAMPTZ, body FROM _listed`, [space, listedAt.toISOString()]);
    const deleted = await deletedAt(db, ids);
    // A usable detail fetched at or after this listing stays the conversation's row.
    const kept = ids.filter((id) => {
      const d = details.get(id);
      return d?.usable === true && d.fetchedAt >= listedAt;
    });
    const rows: ConversationRow[] = page
      .filter((e) => !kept.includes(e.id))
      .map((e) => {
        const d = details.get(e.id);
        return {
          id: e.id,
          space,
          fields: normaliseSummary(parseOrNull(e.body)),
          listedAt,
          detailFetchedAt: d?.usable ? d.fetchedAt : null,
          detailState: d?.state ?? null,
          deletedAt: deleted.get(e.id) ?? null,
        };
      });
    const replaced = rows.map((r) => r.id);
    await db.run(`DELETE FROM conversations WHERE ${inIds(replaced, 'id')}`, idParams(replaced));
    await insertConversationRows(db, rows);
    if (kept.length > 0) {
      await db.run(`UPDATE conversations SET listed_at = $1::TIMESTAMPTZ WHERE ${inIds(kept, 'id', 2)}`, [listedAt.toISOString(), ...kept]);
    }
  });
}

/** One crawl's flush: details of one space, the conversations found deleted, and its run's errors and counters so far. */
export interface DetailBatch {
  space: string;
  details: FetchedDetail[];
  /** conversations whose detail answered 404 */
  deleted?: DeletedConversation[];
  errors: SyncErrorRecord[];
  runId: number;
  counters: RunCounters;
}

/** A conversation seen deleted at the source. */
export interface DeletedConversation {
  id: string;
  seenAt: Date;
  /** `detail_not_found` (its detail answered 404) or `missing_from_listing` (a window listed again in full no longer held it) */
  reason: 'detail_not_found' | 'missing_from_listing';
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

/** The body text bytes a batch of details holds (what sizes its transaction). */
export function detailBytes(details: readonly { body: string | Buffer }[]): number {
  let n = 0;
  for (const d of details) n += d.body.length;
  return n;
}

/**
 * Several flushes (of one space or several) in one transaction: the id lookups, each a scan of
 * the stored ids, are shared by all of them (many keys each flushing a few details every 2 s
 * would otherwise pay them per flush).
 */
export async function saveDetailBatches(db: Database, batches: readonly DetailBatch[]): Promise<void> {
  const all = lastPerId(batches.flatMap((b) => b.details.map((d) => ({ ...readDetail(d), space: b.space }))));
  await stage(
    db,
    '_details',
    ['id', 'space', 'fetched_at', 'body', 'invalid_reason', 'is_final', 'detail_state', 'has_recording_link'],
    all.map((d) => {
      const n = d.normalised;
      const inline = d.body.length <= INLINE_BODY_CHARS ? d.body : null;
      return [d.id, d.space, d.fetchedAt.toISOString(), inline, n.usable ? null : n.reason, String(n.usable && n.fields.is_final), detailState(n), String(n.recordingLink)];
    }),
  );
  const long = all.filter((d) => d.body.length > INLINE_BODY_CHARS);
  const ids = all.map((d) => d.id);
  const listedWithin = storedWithin('listed_at', all, (at) => at.listedAt);
  const fetchedWithin = storedWithin('fetched_at', all, (at) => at.fetchedAt);
  await db.transaction(async () => {
    if (all.length > 0) {
      const stored = withinIds(fetchedWithin, ids, 'id');
      const replaced = await db.all<{ id: string; parted: boolean }>(
        `DELETE FROM raw_conversations WHERE ${stored.sql} RETURNING id, body IS NULL AS parted`,
        stored.params,
      );
      await db.run(
        `INSERT INTO raw_conversations BY NAME
         SELECT id, space, fetched_at::TIMESTAMPTZ AS fetched_at, body, invalid_reason, is_final::BOOLEAN AS is_final, detail_state,
                false AS listing_changed, has_recording_link::BOOLEAN AS has_recording_link
         FROM _details`,
      );
      const unparted = replaced.filter((r) => r.parted).map((r) => r.id);
      if (unparted.length > 0) await db.run(`DELETE FROM raw_conversation_parts WHERE ${inIds(unparted, 'id')}`, idParams(unparted));
      if (long.length > 0) {
        await stage(db, '_body_parts', ['id', 'part', 'text'], (function* () {
          for (const d of long) {
            const parts = splitText(d.body);
            for (let i = 0; i < parts.length; i++) yield [d.id, String(i), parts[i]!];
          }
        })());
        await db.run(`INSERT INTO raw_conversation_parts SELECT id, part::INTEGER, text FROM _body_parts`);
      }
      await replaceConversationRows(db, all, listedWithin);
      // A detail fetched for the first time has no child rows to replace: the delete (a scan of
      // every stored turn) only runs when the batch holds a conversation fetched before.
      if (replaced.length > 0) await deleteChildRows(db, ids);
      await insertChildRows(db, all.map((d) => ({ id: d.id, normalised: d.normalised })));
    }
    for (const b of batches) {
      if (b.deleted && b.deleted.length > 0) await markDeleted(db, b.space, b.runId, b.deleted);
      await insertErrors(db, b.runId, b.errors);
      await updateRun(db, b.runId, b.counters);
    }
  });
}

/**
 * The conversations rows of the batch's details: a usable detail is the row unless its list
 * entry was listed after it was fetched; otherwise (or when set aside) the stored list entry is.
 */
async function replaceConversationRows(db: Database, details: readonly (ReadDetail & { space: string })[], listedWithin: TimeRange): Promise<void> {
  const ids = details.map((d) => d.id);
  const stored = withinIds(listedWithin, ids, 'id');
  const listed = new Map(
    (
      await db.all<{ id: string; space: string; listed_at: Date }>(
        `SELECT id, space, listed_at FROM raw_listed_conversations WHERE ${stored.sql}`,
        stored.params,
      )
    ).map((r) => [r.id, r]),
  );
  const listedWins = details.filter((d) => {
    const l = listed.get(d.id);
    return l !== undefined && (!d.normalised.usable || d.fetchedAt < l.listed_at);
  });
  const listedBodies = new Map<string, string>();
  if (listedWins.length > 0) {
    const wins = withinIds(listedWithin, listedWins.map((d) => d.id), 'id');
    const rows = await db.all<{ id: string; body: string }>(`SELECT id, body FROM raw_listed_conversations WHERE ${wins.sql}`, wins.params);
    for (const r of rows) listedBodies.set(r.id, r.body);
  }
  const deleted = await deletedAt(db, ids);
  const rows: ConversationRow[] = [];
  for (const d of details) {
    const l = listed.get(d.id) ?? null;
    const n = d.normalised;
    const body = listedBodies.get(d.id);
    const fields = body !== undefined ? normaliseSummary(parseOrNull(body)) : n.usable ? n.fields : null;
    if (!fields) continue; // set aside and never listed: nothing to derive a row from
    rows.push({
      id: d.id,
      space: l?.space ?? d.space,
      fields,
      listedAt: l?.listed_at ?? null,
      detailFetchedAt: n.usable ? d.fetchedAt : null,
      detailState: detailState(n),
      deletedAt: deleted.get(d.id) ?? null,
    });
  }
  await db.run(`DELETE FROM conversations WHERE ${stored.sql}`, stored.params);
  await insertConversationRows(db, rows);
}

/** Records conversations as deleted at the source (once: the first sighting stays), and marks their rows. */
export async function markDeleted(db: Database, space: string, runId: number, deleted: readonly DeletedConversation[]): Promise<void> {
  if (deleted.length === 0) return;
  await stage(
    db,
    '_deleted',
    ['id', 'seen_at', 'reason'],
    lastPerId(deleted).map((d) => [d.id, d.seenAt.toISOString(), d.reason]),
  );
  await db.run(
    `INSERT INTO deleted_conversations
     SELECT id, ?, seen_at::TIMESTAMPTZ, reason, ? FROM _deleted
     WHERE id NOT IN (SELECT id FROM deleted_conversations)`,
    [space, runId],
  );
  await db.run(
    `UPDATE conversations c SET deleted_at = x.seen_deleted_at
     FROM deleted_conversations x WHERE x.id = c.id AND c.deleted_at IS NULL AND c.id IN (SELECT id FROM _deleted)`,
  );
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

/**
 * A fetched detail from its body text: parsed and read by normalise.ts (text that is not JSON is
 * set aside). A long usable one waits for its write as UTF-8 bytes and its state alone: as text
 * (UTF-16 once it holds an emoji) with its rows it would cost several times its size, and a
 * crawl's workers still in flight when the held results meet their cap add theirs to it.
 */
export function fetchedDetail(id: string, fetchedAt: Date, body: string, storedAt?: StoredAt, read?: BodyRead): FetchedDetail {
  const notUtf8 = read?.notUtf8 === true;
  const read1 = read ? normaliseDetail(read.parsed, id) : normaliseDetailText(body, id);
  const normalised = notUtf8 ? readAsNotUtf8(read1) : read1;
  if (body.length <= INLINE_BODY_CHARS || !normalised.usable) return { id, fetchedAt, body, normalised, storedAt };
  return { id, fetchedAt, body: Buffer.from(body, 'utf8'), normalised: { usable: true, coerced: normalised.coerced, deferred: true, notUtf8, recordingLink: normalised.recordingLink }, storedAt };
}

/** The detail with its body as text and its rows read again where they wait (the same rules give the same rows). */
function readDetail(d: FetchedDetail): ReadDetail {
  const body = typeof d.body === 'string' ? d.body : d.body.toString('utf8');
  const n = d.normalised;
  if (!('deferred' in n)) return { ...d, body, normalised: n };
  const again = normaliseDetailText(body, d.id);
  return { ...d, body, normalised: n.notUtf8 ? readAsNotUtf8(again) : again };
}
