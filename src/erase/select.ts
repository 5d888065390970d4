// Which stored conversations a selector picks: by id, by session_ref, by a caller's phone number or
// e-mail address in any text stored of them, by age (retention) or because the source deleted them.
// A conversation counts as stored when any table holds a row of it.

import type { Database } from '../store/database.js';
import { idParams, inIds } from '../store/batch-sql.js';
import { prefilter, textHolds, type MatchTarget } from './match.js';

export interface ErasureTarget {
  id: string;
  space: string | null;
  startedAt: Date | null;
}

/** Every id some table holds a row of, with its space and start where known. */
const STORED = `(
  SELECT k.id, coalesce(any_value(c.space), any_value(l.space), any_value(r.space), any_value(x.space)) AS space,
         any_value(c.started_at) AS started_at
  FROM (SELECT id FROM conversations UNION SELECT id FROM raw_listed_conversations
        UNION SELECT id FROM raw_conversations UNION SELECT id FROM deleted_conversations) k
  LEFT JOIN conversations c USING (id) LEFT JOIN raw_listed_conversations l USING (id)
  LEFT JOIN raw_conversations r USING (id) LEFT JOIN deleted_conversations x USING (id)
  GROUP BY k.id)`;

/** The stored conversations among `ids` (oldest first); ids no table holds are left out. */
export async function storedConversations(db: Database, ids: readonly string[]): Promise<ErasureTarget[]> {
  if (ids.length === 0) return [];
  const rows = await db.all<{ id: string; space: string | null; started_at: Date | null }>(
    `SELECT id, space, started_at FROM ${STORED} s WHERE ${inIds(ids, 's.id')} ORDER BY started_at NULLS FIRST, id`,
    idParams(ids),
  );
  return rows.map((r) => ({ id: r.id, space: r.space, startedAt: r.started_at }));
}

/** Ids among `ids` already erased. */
export async function erasedAlready(db: Database, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.all<{ id: string }>(`SELECT DISTINCT id FROM erasures WHERE ${inIds(ids, 'id')}`, idParams(ids));
  return new Set(rows.map((r) => r.id));
}

export async function bySessionRef(db: Database, refs: readonly string[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const rows = await db.all<{ id: string }>(`SELECT DISTINCT id FROM conversations WHERE ${inIds(refs, 'session_ref')}`, idParams(refs));
  return rows.map((r) => r.id);
}

/**
 * Every text stored of a conversation, one row per piece: the raw bodies (a long one joined from
 * its parts), the summary, transcript lines and tool call payloads.
 */
const TEXTS = `(
  SELECT id, body AS t FROM raw_listed_conversations
  UNION ALL SELECT id, body FROM raw_conversations WHERE body IS NOT NULL
  UNION ALL SELECT id, string_agg(text, '' ORDER BY part) FROM raw_conversation_parts GROUP BY id
  UNION ALL SELECT id, summary FROM conversations WHERE summary IS NOT NULL
  UNION ALL SELECT conversation_id, text FROM transcript_turns WHERE text IS NOT NULL
  UNION ALL SELECT conversation_id, concat_ws(' ', input_redacted::VARCHAR, output_redacted::VARCHAR) FROM tool_calls)`;

/** The conversations any stored text of which holds the target. */
export async function byMatch(db: Database, target: MatchTarget): Promise<string[]> {
  const filter = prefilter(target);
  const found = new Set<string>();
  const rows = await db.all<{ id: string; t: string }>(
    `SELECT id, t FROM ${TEXTS} WHERE ${filter.sql('t')}`,
    filter.params,
  );
  for (const r of rows) if (!found.has(r.id) && textHolds(target, r.t)) found.add(r.id);
  return [...found];
}

/** The space's conversations that started before `before`. */
export async function startedBefore(db: Database, space: string, before: Date): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM conversations WHERE space = ? AND started_at < ?::TIMESTAMPTZ`,
    [space, before.toISOString()],
  );
  return rows.map((r) => r.id);
}

/** The space's conversations seen deleted at the source that are still stored. */
export async function deletedAtSource(db: Database, space: string): Promise<string[]> {
  const rows = await db.all<{ id: string }>(`SELECT DISTINCT id FROM deleted_conversations WHERE space = ?`, [space]);
  return rows.map((r) => r.id);
}
