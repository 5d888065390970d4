// What a server counts beyond what it serves, per run: sync_runs.server_count_excess. A server
// whose `meta.total` is off for good (soft-deleted rows counted, a cached or approximate count)
// keeps serving the same conversations against the same count; the crawler trusts what it serves
// once a run finds the shortfall the space's run before found, and `status` says the count is off.

import type { Database } from './database.js';
import { storedInWindow, type TimeWindow } from './watermark.js';

/** The run's listing ended: the server counted `excess` more conversations than it served in its window. */
export async function recordCountExcess(db: Database, runId: number, excess: number): Promise<void> {
  await db.run(`UPDATE sync_runs SET server_count_excess = ? WHERE run_id = ?`, [excess, runId]);
}

/**
 * The excess the space's latest run before `runId` measured at the end of its listing, or null
 * when no run of the space listed to the end (or only before the column existed).
 */
export async function previousCountExcess(db: Database, space: string, runId: number): Promise<number | null> {
  const row = await db.one<{ excess: number }>(
    `SELECT server_count_excess AS excess FROM sync_runs
     WHERE space = ? AND run_id < ? AND server_count_excess IS NOT NULL
     ORDER BY run_id DESC LIMIT 1`,
    [space, runId],
  );
  return row ? Number(row.excess) : null;
}

/**
 * Whether to trust a window whose listing fell `shortfall` short: a server whose count is off for
 * good serves the same conversations against the same count run after run, so the space's run
 * before ended its listing short by as many, and every conversation stored in the window was
 * served again (`seen`, started_at in ms by id). A listing that shifted between pages loses some,
 * or differs in number, and is narrowed down as any short window.
 */
export async function sameShortfallAsBefore(
  db: Database,
  run: { space: string; runId: number; window: TimeWindow; shortfall: number; seen: ReadonlyMap<string, number> },
): Promise<boolean> {
  const { space, runId, window, shortfall, seen } = run;
  if ((await previousCountExcess(db, space, runId)) !== shortfall) return false;
  const from = window.fromMs === null ? null : new Date(window.fromMs);
  for await (const stored of storedInWindow(db, space, from, new Date(window.toMs))) {
    if (stored.startedMs >= (window.fromMs ?? -Infinity) && stored.startedMs <= window.toMs && !seen.has(stored.id)) return false;
  }
  return true;
}

/** A space whose latest listed run trusted what the server served against a count that was higher. */
export interface CountOff {
  space: string;
  runId: number;
  /** conversations the server counted in the run's window beyond those it served */
  excess: number;
  /** the run's window (from null: the beginning of history) */
  from: Date | null;
  to: Date;
}

/**
 * Per space, its latest run whose listing ended, when the server counted more than it served and
 * the run recorded no listing gap (it trusted what was served), in space order.
 */
export async function countsOff(db: Database): Promise<CountOff[]> {
  const rows = await db.all(
    `SELECT space, run_id, server_count_excess AS excess, epoch_ms(window_from)::DOUBLE AS from_ms, epoch_ms(window_to)::DOUBLE AS to_ms
     FROM (SELECT * FROM sync_runs WHERE server_count_excess IS NOT NULL AND space IS NOT NULL
           QUALIFY row_number() OVER (PARTITION BY space ORDER BY run_id DESC) = 1) r
     WHERE server_count_excess > 0 AND NOT EXISTS (SELECT 1 FROM listing_gaps g WHERE g.run_id = r.run_id)
     ORDER BY space`,
  );
  return rows.map((r) => ({
    space: String(r.space),
    runId: Number(r.run_id),
    excess: Number(r.excess),
    from: r.from_ms === null ? null : new Date(Number(r.from_ms)),
    to: new Date(Number(r.to_ms)),
  }));
}

/** A page of the listing as `check` read it: its conversations and the span of their started_at. */
export interface PageRead {
  ids: ReadonlySet<string>;
  /** the oldest and newest started_at on the page (ms) */
  fromMs: number;
  toMs: number;
}

/** What the database knows that decides whether sync will trust the count `check` sees. */
export interface CountOffRecord {
  /** the space's latest run that trusted what was served against a higher count, and by how many */
  trusted: { runId: number; excess: number } | null;
  /** the space's latest run that found its count off and reported the listing short (a first sight) */
  reported: { runId: number; excess: number } | null;
  /** conversations stored (and not deleted) strictly inside a page's span that the page left out */
  storedNotServed: string[];
}

/**
 * The space's latest run that trusted a count off (it recorded an excess and no listing gap) and
 * its latest that reported one short, and the conversations stored inside the pages read that the
 * server no longer serves: sync trusts a shortfall only when every conversation stored in the
 * window is served again.
 */
export async function countOffRecord(db: Database, space: string, pages: readonly PageRead[]): Promise<CountOffRecord> {
  const latest = async (trusted: boolean) => {
    const row = await db.one<{ run_id: number; excess: number }>(
      `SELECT run_id, server_count_excess AS excess FROM sync_runs r
       WHERE space = ? AND server_count_excess > 0 AND ${trusted ? 'NOT ' : ''}EXISTS (SELECT 1 FROM listing_gaps g WHERE g.run_id = r.run_id)
       ORDER BY run_id DESC LIMIT 1`,
      [space],
    );
    return row ? { runId: Number(row.run_id), excess: Number(row.excess) } : null;
  };
  const storedNotServed: string[] = [];
  for (const page of pages) {
    // strictly inside, by a millisecond: a conversation at the page's edge may sit on the next
    // page, and the database keeps microseconds the page's span (ms) does not
    const rows = await db.all<{ id: string }>(
      `SELECT id FROM conversations
       WHERE space = ? AND deleted_at IS NULL AND started_at > ?::TIMESTAMPTZ AND started_at < ?::TIMESTAMPTZ
       ORDER BY started_at, id`,
      [space, new Date(page.fromMs + 1).toISOString(), new Date(page.toMs - 1).toISOString()],
    );
    for (const r of rows) if (!page.ids.has(r.id)) storedNotServed.push(r.id);
  }
  return { trusted: await latest(true), reported: await latest(false), storedNotServed };
}
