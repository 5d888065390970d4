// Windows whose listing did not add up (the server counted more conversations than it served),
// kept as rows of `listing_gaps`: the crawler records them, `status` reads which are still open.
// A gap also gets a sync_errors row for people to read; no code reads a gap back from it.

import type { Database } from './database.js';
import type { TimeWindow } from './watermark.js';

/** A window whose listing did not add up: the server counts more conversations than it served. */
export interface ShortWindow extends TimeWindow {
  /** the largest `meta.total` the server gave for the window */
  counted: number;
  /** distinct conversations seen in the window */
  served: number;
}

/** A short window no later run has listed again. */
export interface ListingGap extends ShortWindow {
  /** the run that found it */
  runId: number;
  /** the space that run listed */
  space: string | null;
}

/** One window spanning every short window, with their counts summed (null when none is short). */
export function combineShortWindows(short: readonly ShortWindow[]): ShortWindow | null {
  if (short.length === 0) return null;
  return {
    fromMs: short.some((w) => w.fromMs === null) ? null : Math.min(...short.map((w) => w.fromMs!)),
    toMs: Math.max(...short.map((w) => w.toMs)),
    counted: short.reduce((n, w) => n + w.counted, 0),
    served: short.reduce((n, w) => n + w.served, 0),
  };
}

function bound(ms: number | null): string {
  return ms === null ? 'beginning' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/**
 * A short window in words, for sync_errors and sync_runs.message, e.g. `listing 2026-11-01T00:00:00Z..
 * 2026-11-02T00:00:00Z is short: the server counts 451 conversations, 450 were served`.
 */
export function describeShortWindow(w: ShortWindow): string {
  const noun = w.counted === 1 ? 'conversation' : 'conversations';
  return `listing ${bound(w.fromMs)}..${bound(w.toMs)} is short: the server counts ${w.counted} ${noun}, ${w.served} ${w.served === 1 ? 'was' : 'were'} served`;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Records the short windows run `runId` of `space` found. */
export async function recordListingGaps(
  db: Database,
  runId: number,
  space: string,
  windows: readonly ShortWindow[],
  recordedAt: Date,
): Promise<void> {
  for (const w of windows) {
    await db.run(`INSERT INTO listing_gaps VALUES (?, ?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, ?, ?, ?::TIMESTAMPTZ)`, [
      runId,
      space,
      iso(w.fromMs),
      iso(w.toMs)!,
      w.counted,
      w.served,
      recordedAt.toISOString(),
    ]);
  }
}

/**
 * Gaps no later run has listed again: a later run that finished its listing (status ok or errors)
 * over a window covering the gap either listed it completely or recorded the gap anew. Another
 * space's run lists other conversations: only the same space's relists the window.
 */
export async function openListingGaps(db: Database): Promise<ListingGap[]> {
  const rows = await db.all(
    `SELECT g.run_id, g.space, epoch_ms(g.window_from)::DOUBLE AS from_ms, epoch_ms(g.window_to)::DOUBLE AS to_ms,
            g.server_count, g.served
     FROM listing_gaps g
     WHERE NOT EXISTS (
       SELECT 1 FROM sync_runs r
       WHERE r.run_id > g.run_id AND r.status IN ('ok', 'errors') AND r.window_to IS NOT NULL
         AND (r.space = g.space OR r.space IS NULL OR g.space IS NULL)
         AND (r.window_from IS NULL OR (g.window_from IS NOT NULL AND r.window_from <= g.window_from))
         AND r.window_to >= g.window_to)
     ORDER BY g.run_id, g.recorded_at, g.window_from NULLS FIRST, g.window_to`,
  );
  return rows.map((r) => ({
    runId: Number(r.run_id),
    space: (r.space as string | null) ?? null,
    fromMs: r.from_ms === null ? null : Number(r.from_ms),
    toMs: Number(r.to_ms),
    counted: Number(r.server_count),
    served: Number(r.served),
  }));
}
