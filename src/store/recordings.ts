// The recordings table: one row per conversation whose recording a sync tried to download, with
// where its file is and what it holds (stored), or why it is not there (missing, expired, …).
// What is owed is read from the stored details' load facts: a conversation whose detail carries a
// recording_url (raw_conversations.has_recording_link) and has no stored row.

import type { Database } from './database.js';

export const RECORDING_STATES = ['stored', 'missing', 'expired', 'truncated', 'too_large', 'no_space', 'failed'] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];

export const RECORDINGS_DDL = `CREATE TABLE IF NOT EXISTS recordings (
  conversation_id VARCHAR NOT NULL PRIMARY KEY,
  space VARCHAR NOT NULL,
  state VARCHAR NOT NULL,
  reason VARCHAR,
  path VARCHAR,
  bytes BIGINT,
  sha256 VARCHAR,
  content_type VARCHAR,
  duration_seconds DOUBLE,
  downloaded_at TIMESTAMPTZ,
  attempts INTEGER NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);`;

export interface RecordingRow {
  conversationId: string;
  space: string;
  state: RecordingState;
  reason: string | null;
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  contentType: string | null;
  durationSeconds: number | null;
  /** when the file was complete (stored rows) */
  downloadedAt: Date | null;
  /** download attempts this time (added to the row's earlier ones) */
  attempts: number;
  at: Date;
}

/** Records a download's outcome; a stored row is never replaced by a failed one. */
export async function saveRecording(db: Database, r: RecordingRow): Promise<void> {
  await db.run(
    `INSERT INTO recordings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::TIMESTAMPTZ, ?, ?::TIMESTAMPTZ)
     ON CONFLICT (conversation_id) DO UPDATE SET
       state = excluded.state, reason = excluded.reason, path = excluded.path, bytes = excluded.bytes,
       sha256 = excluded.sha256, content_type = excluded.content_type, duration_seconds = excluded.duration_seconds,
       downloaded_at = excluded.downloaded_at, attempts = recordings.attempts + excluded.attempts, updated_at = excluded.updated_at
     WHERE recordings.state <> 'stored' OR excluded.state = 'stored'`,
    [
      r.conversationId, r.space, r.state, r.reason, r.path, r.bytes, r.sha256, r.contentType, r.durationSeconds,
      r.downloadedAt?.toISOString() ?? null, r.attempts, r.at.toISOString(),
    ],
  );
}

/** The stored detail carries a recording link (decided as it was written: load-state.ts). */
const STORED_LINK = `coalesce(d.has_recording_link, false)`;

export interface OwedRecording {
  id: string;
  startedAt: string | null;
}

/**
 * Stored conversations of `space` whose detail has a recording link and whose recording is not
 * stored: started at or after `since` (null: all), newest first (the oldest last), less `skip`.
 */
export async function owedRecordings(db: Database, space: string, since: Date | null): Promise<OwedRecording[]> {
  const rows = await db.all<{ id: string; started_at: string | null }>(
    `SELECT c.id, strftime(c.started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS started_at
     FROM conversations c JOIN raw_conversations d ON d.id = c.id
     LEFT JOIN recordings g ON g.conversation_id = c.id
     WHERE c.space = ? AND c.deleted_at IS NULL AND ${STORED_LINK}
       AND coalesce(g.state, '') <> 'stored'
       AND (?::TIMESTAMPTZ IS NULL OR c.started_at >= ?::TIMESTAMPTZ)
     ORDER BY c.started_at DESC NULLS LAST, c.id`,
    [space, since?.toISOString() ?? null, since?.toISOString() ?? null],
  );
  return rows.map((r) => ({ id: r.id, startedAt: r.started_at }));
}

/** The files of these conversations' stored recordings, by conversation id (erase removes them). */
export async function recordingFiles(db: Database, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all<{ id: string; path: string }>(
    `SELECT conversation_id AS id, path FROM recordings WHERE path IS NOT NULL AND list_contains(from_json(?, '["VARCHAR"]'), conversation_id)`,
    [JSON.stringify(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.path]));
}

export interface RecordingCounts {
  space: string;
  expected: number;
  stored: number;
  missing: number;
  expired: number;
  /** conversations with a row: a download was tried */
  tried: number;
}

/** Per space: recordings the stored details promise, and how many are stored, missing, expired. */
export async function recordingCounts(db: Database): Promise<RecordingCounts[]> {
  return db.all<RecordingCounts & Record<string, unknown>>(
    `SELECT c.space,
            count(*) FILTER (WHERE ${STORED_LINK})::INTEGER AS expected,
            count(*) FILTER (WHERE g.state = 'stored')::INTEGER AS stored,
            count(*) FILTER (WHERE g.state = 'missing')::INTEGER AS missing,
            count(*) FILTER (WHERE g.state = 'expired')::INTEGER AS expired,
            count(g.conversation_id)::INTEGER AS tried
     FROM conversations c JOIN raw_conversations d ON d.id = c.id
     LEFT JOIN recordings g ON g.conversation_id = c.id
     WHERE c.deleted_at IS NULL
     GROUP BY c.space ORDER BY c.space`,
  );
}
