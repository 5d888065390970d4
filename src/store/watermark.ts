// How far listing got, per space, read from the database itself: the watermark (the end of the
// space's last window listed completely, on the server's timeline), the newest started_at the
// server had sent by then (where the next window resumes), and what is stored in a window a
// listing checks.

import type { Database } from './database.js';

/** How far before the watermark an incremental sync starts listing unless told otherwise (--overlap). */
export const DEFAULT_OVERLAP_MS = 3_600_000;

/** A window of started_at (ms, inclusive); `fromMs` null reaches back to the beginning of history. */
export interface TimeWindow {
  fromMs: number | null;
  toMs: number;
}

/**
 * The `to` of the space's last window listed completely, or null before its first full listing.
 * Without a space: the earliest of every space's (what all of them were listed up to).
 */
export async function getWatermark(db: Database, space?: string): Promise<Date | null> {
  const row =
    space === undefined
      ? await db.one<{ listed_to: Date | null }>(`SELECT min(listed_to) AS listed_to FROM listing_watermarks`)
      : await db.one<{ listed_to: Date | null }>(`SELECT listed_to FROM listing_watermarks WHERE space = ?`, [space]);
  return row?.listed_to ?? null;
}

/**
 * Records a window listed completely: its end (`to`) and where the next incremental window starts
 * from (`newest`: the newest started_at the server had sent, never past its clock; default `to`).
 */
export async function setWatermark(db: Database, to: Date, space: string, newest: Date = to): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO listing_watermarks (space, listed_to, listed_newest) VALUES (?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ)`, [
    space,
    to.toISOString(),
    newest.toISOString(),
  ]);
}

/**
 * The point on the server's timeline an incremental listing of the space resumes from (an overlap
 * before it): the newest started_at it had sent when its last window added up; null: list it all.
 */
export async function getListedNewest(db: Database, space: string): Promise<Date | null> {
  const row = await db.one<{ listed_newest: Date | null }>(`SELECT listed_newest FROM listing_watermarks WHERE space = ?`, [space]);
  return row?.listed_newest ?? null;
}

/** Every space's resume point (getListedNewest), by slug; spaces without one are left out. */
export async function listListedNewest(db: Database): Promise<Map<string, Date>> {
  const rows = await db.all<{ space: string; listed_newest: Date }>(
    `SELECT space, listed_newest FROM listing_watermarks WHERE listed_newest IS NOT NULL ORDER BY space`,
  );
  return new Map(rows.map((r) => [r.space, r.listed_newest]));
}

/** Every space's watermark, by slug. */
export async function listWatermarks(db: Database): Promise<Map<string, Date>> {
  const rows = await db.all<{ space: string; listed_to: Date }>(`SELECT space, listed_to FROM listing_watermarks ORDER BY space`);
  return new Map(rows.map((r) => [r.space, r.listed_to]));
}

/** Stored conversations a keyset page of storedInWindow reads at once. */
const WINDOW_PAGE_ROWS = 20_000;

/**
 * The space's stored conversations not marked deleted whose started_at lies in the window (from
 * null: the beginning of history), with started_at in ms, in pages (a full listing of a large space).
 */
export async function* storedInWindow(
  db: Database,
  space: string,
  from: Date | null,
  to: Date,
): AsyncGenerator<{ id: string; startedMs: number }> {
  let after: { ms: number; id: string } | null = null;
  for (;;) {
    const rows: { id: string; ms: number }[] = await db.all<{ id: string; ms: number }>(
      `SELECT id, epoch_ms(started_at)::DOUBLE AS ms FROM conversations
       WHERE space = ? AND deleted_at IS NULL AND started_at IS NOT NULL
         AND started_at <= ?::TIMESTAMPTZ ${from ? `AND started_at >= ?::TIMESTAMPTZ` : ''}
         ${after ? `AND (epoch_ms(started_at), id) > (${after.ms}, ?)` : ''}
       ORDER BY epoch_ms(started_at), id LIMIT ${WINDOW_PAGE_ROWS}`,
      [space, to.toISOString(), ...(from ? [from.toISOString()] : []), ...(after ? [after.id] : [])],
    );
    for (const r of rows) yield { id: r.id, startedMs: Number(r.ms) };
    if (rows.length < WINDOW_PAGE_ROWS) return;
    const last = rows.at(-1)!;
    after = { ms: Number(last.ms), id: last.id };
  }
}
