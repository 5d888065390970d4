// Redaction at rest turned on for a space that already holds clear text: its stored bodies are
// cleaned as a sync with it would have cleaned them, every derived table is derived again from
// the bodies (as `rebuild` does) and the space is recorded, all in one transaction; then the file
// is rewritten (rewrite-file.ts), since DuckDB keeps the replaced values' bytes in freed blocks.
// Like an erasure it cannot be undone: the clear text is in no table and no block afterwards.

import { redactBody, redactBodyText, type Redaction } from '../redact/index.js';
import { recordAtRest } from './redaction-at-rest.js';
import { Database } from './database.js';
import { idParams, inIds, pages, stage } from './batch-sql.js';
import { bodiesInParts, rederive } from './derive.js';
import { INLINE_BODY_CHARS, splitText } from './body-parts.js';
import { REWRITE_PENDING, rewriteDatabaseFile } from './rewrite-file.js';
import { sqlText } from './sql.js';
import { dropLastGood } from './last-good.js';

/** The body cleaned: as parsed JSON when it is JSON, else as text. */
function cleaned(body: string, redaction: Redaction): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return redactBodyText(body, redaction);
  }
  return JSON.stringify(redactBody(parsed, redaction));
}

/**
 * Redacts what the database at `dbPath` holds of `space` and records the space as redacted at
 * rest; the caller holds the sync lock and no other opening of the file. Returns how many stored
 * bodies were cleaned.
 */
export async function redactStoredSpace(dbPath: string, space: string, redaction: Redaction, since: Date): Promise<number> {
  const cleanedBodies = await redactStoredRows(dbPath, space, redaction, since);
  await rewriteDatabaseFile(dbPath);
  return cleanedBodies;
}

/** The redaction's one transaction, the rewrite marked pending; the file is not rewritten yet. */
export async function redactStoredRows(dbPath: string, space: string, redaction: Redaction, since: Date): Promise<number> {
  // the copy a sync keeps holds the clear text: it goes before the clear text does, so that a run
  // killed before the rewrite (which keeps a new copy) leaves no copy a sync could restore it from
  dropLastGood(dbPath);
  return Database.with(
    dbPath,
    (db) =>
      db.transaction(async () => {
        let n = 0;
        await pages<{ id: string; body: string }>(
          db,
          'raw_listed_conversations',
          (range) => `SELECT id, body FROM raw_listed_conversations WHERE ${range} AND space = ${sqlText(space)}`,
          async (rows) => {
            n += rows.length;
            await stage(db, '_cleaned', ['id', 'body'], rows.map((r) => [r.id, cleaned(r.body, redaction)]));
            await db.run(`UPDATE raw_listed_conversations l SET body = c.body FROM _cleaned c WHERE l.id = c.id AND l.space = ?`, [space]);
          },
        );
        await pages<{ id: string; body: string | null }>(
          db,
          'raw_conversations',
          (range) => `SELECT id, body FROM raw_conversations WHERE ${range} AND space = ${sqlText(space)} AND (body IS NULL OR body <> '')`,
          async (rows) => {
            n += rows.length;
            await cleanDetails(db, rows, redaction);
          },
        );
        await rederive(db);
        await recordAtRest(db, space, since, null, redaction);
        await db.run(`INSERT OR REPLACE INTO convoduck_meta VALUES (?, ?)`, [REWRITE_PENDING, since.toISOString()]);
        return n;
      }),
    // no cap, as `rebuild`: its one transaction over every table needs more than a write
    { mustExist: true },
  );
}

/** Detail bodies cleaned in place: a long one (kept in parts) is split again after cleaning. */
async function cleanDetails(db: Database, rows: readonly { id: string; body: string | null }[], redaction: Redaction): Promise<void> {
  const parted = rows.filter((r) => r.body === null).map((r) => r.id);
  const wholes = await bodiesInParts(db, parted);
  const out = rows.map((r) => ({ id: r.id, body: cleaned(r.body ?? wholes.get(r.id) ?? '', redaction) }));
  await stage(db, '_cleaned', ['id', 'body'], out.map((d) => [d.id, d.body.length <= INLINE_BODY_CHARS ? d.body : null]));
  await db.run(`UPDATE raw_conversations r SET body = c.body FROM _cleaned c WHERE r.id = c.id`);
  if (parted.length > 0) await db.run(`DELETE FROM raw_conversation_parts WHERE ${inIds(parted, 'id')}`, idParams(parted));
  const long = out.filter((d) => d.body.length > INLINE_BODY_CHARS);
  if (long.length === 0) return;
  await stage(db, '_cleaned_parts', ['id', 'part', 'text'], long.flatMap((d) => splitText(d.body).map((text, i) => [d.id, String(i), text])));
  await db.run(`INSERT INTO raw_conversation_parts SELECT id, part::INTEGER, text FROM _cleaned_parts`);
}
