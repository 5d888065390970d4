// The crawl's load state, read from the database itself (as dlt does): what still needs a
// detail, and how far listing got. Nothing about progress lives outside the DuckDB file.

import type { Database } from './database.js';
import { getMeta, setMeta } from './writes.js';

const WATERMARK_KEY = 'listing_watermark';

/**
 * Over raw_listed_conversations l LEFT JOIN raw_conversations d: the listed conversation needs its
 * detail fetched (never fetched, unusable, or not final when fetched).
 */
export const NEEDS_DETAIL = `(d.id IS NULL OR d.invalid_reason IS NOT NULL OR NOT coalesce(d.is_final, false))`;

/**
 * Conversations whose detail must be fetched: never fetched, fetched but unusable, or not
 * final when fetched (a finished conversation's detail is fetched once in its life).
 * `firstOutcomes` come first; within a group, newest first.
 */
export async function pendingDetailIds(db: Database, firstOutcomes: string[] = []): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT l.id
     FROM raw_listed_conversations l
     LEFT JOIN raw_conversations d USING (id)
     LEFT JOIN conversations c USING (id)
     WHERE ${NEEDS_DETAIL}
     ORDER BY coalesce(list_contains(string_split(?, ','), c.outcome), false) DESC, c.started_at DESC, l.id`,
    [firstOutcomes.join(',')],
  );
  return rows.map((r) => r.id);
}

/** The `to` of the last window listed completely, or null before the first full listing. */
export async function getWatermark(db: Database): Promise<Date | null> {
  const value = await getMeta(db, WATERMARK_KEY);
  return value ? new Date(value) : null;
}

export async function setWatermark(db: Database, to: Date): Promise<void> {
  await setMeta(db, WATERMARK_KEY, to.toISOString());
}

/** Listed conversations with no usable detail stored (never fetched, or fetch failed). */
export async function countMissingDetails(db: Database): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n
     FROM raw_listed_conversations l LEFT JOIN raw_conversations d USING (id)
     WHERE d.id IS NULL OR d.invalid_reason IS NOT NULL`,
  );
  return row?.n ?? 0;
}
