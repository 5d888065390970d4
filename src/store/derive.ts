// Derives the public conversation tables from the raw API bodies, entirely inside DuckDB
// (JSON unnesting is DuckDB's job, not ours). The same SQL serves a batch during `sync` and the
// whole database during `rebuild`, so the two can never disagree: only its inputs differ.

import type { Database, Params } from './database.js';
import { DETAIL_IS_FINAL } from './schema.js';
import { deriveSpaceConfig } from './space-config.js';

/**
 * What a conversation's row is derived from: its list entries (a relation with id, space,
 * listed_at, body) and its usable details (id, space, fetched_at, body). Over the whole database
 * these are the raw tables; for a batch, temp tables holding the batch's rows (writes.ts).
 */
export interface Inputs {
  listed: string;
  details: string;
}

/** Details that are usable: valid bodies only (an invalid one is kept raw, never derived). */
export const STORED_INPUTS: Inputs = {
  listed: 'SELECT id, space, listed_at, body FROM raw_listed_conversations',
  details: 'SELECT id, space, fetched_at, body FROM raw_conversations WHERE invalid_reason IS NULL',
};

const TRANSCRIPT_SHAPE = JSON.stringify([{ at: 'VARCHAR', speaker: 'VARCHAR', text: 'VARCHAR', node_key: 'VARCHAR' }]);
const TOOL_CALL_SHAPE = JSON.stringify([
  {
    at: 'VARCHAR',
    tool_id: 'VARCHAR',
    slug: 'VARCHAR',
    node_key: 'VARCHAR',
    status: 'VARCHAR',
    input_redacted: 'JSON',
    output_redacted: 'JSON',
  },
]);
const NODE_PATH_SHAPE = JSON.stringify([{ at: 'VARCHAR', node_key: 'VARCHAR' }]);

/** `column IN ($1, …, $n)` for a batch of ids (the same numbered parameters may appear several times). */
export function inIds(ids: readonly string[], column: string): string {
  if (ids.length === 0) return 'false';
  return `${column} IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/** The parameters `inIds` refers to. */
export function idParams(ids: readonly string[]): Params | undefined {
  return ids.length === 0 ? undefined : [...ids];
}

/**
 * When a conversation's list entry wins over its detail: the newer of the two wins, so a
 * conversation that finished since its detail was fetched shows its final state even before the
 * detail is fetched again. Over `l` (list entry) and `d` (usable detail) joined by id.
 */
export const LISTED_WINS = `(d.id IS NULL OR (l.id IS NOT NULL AND d.fetched_at < l.listed_at))`;

function childRows(details: string, field: string, shape: string): string {
  return `
    SELECT id AS conversation_id, generate_subscripts(items, 1) - 1 AS seq, unnest(items, recursive := true)
    FROM (
      SELECT id, from_json(json_extract(body, '$.data.${field}'), '${shape}') AS items
      FROM (${details})
    )`;
}

/** Inserts the `conversations` rows of every id in the inputs (the caller deleted the old ones). */
export async function insertConversationRows(db: Database, inputs: Inputs): Promise<void> {
  await db.run(`
    INSERT INTO conversations
    SELECT
      id, space,
      rec->>'$.agent_id', rec->>'$.channel', rec->>'$.direction', rec->>'$.session_ref', rec->>'$.page_url',
      try_cast(rec->>'$.started_at' AS TIMESTAMPTZ),
      try_cast(rec->>'$.ended_at' AS TIMESTAMPTZ),
      try_cast(rec->>'$.duration_sec' AS INTEGER),
      try_cast(rec->>'$.message_count' AS INTEGER),
      rec->>'$.outcome',
      rec->>'$.summary',
      (rec->>'$.ended_at') IS NOT NULL AND (rec->>'$.outcome') IS NOT NULL,
      listed_at,
      detail_fetched_at
    FROM (
      SELECT
        coalesce(l.id, d.id) AS id,
        coalesce(d.space, l.space) AS space,
        CASE WHEN ${LISTED_WINS} THEN l.body ELSE json_extract(d.body, '$.data') END AS rec,
        l.listed_at,
        d.fetched_at AS detail_fetched_at
      FROM (${inputs.listed}) l
      FULL OUTER JOIN (${inputs.details}) d USING (id)
    )`);
}

/** Inserts the transcript_turns, tool_calls and node_visits rows of the given usable details (id, body). */
export async function insertChildRows(db: Database, details: string): Promise<void> {
  await db.run(`
    INSERT INTO transcript_turns
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), speaker, text, node_key
    FROM (${childRows(details, 'transcript', TRANSCRIPT_SHAPE)})`);
  await db.run(`
    INSERT INTO tool_calls
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), tool_id, slug, node_key, status, input_redacted, output_redacted
    FROM (${childRows(details, 'tool_calls', TOOL_CALL_SHAPE)})`);
  await db.run(`
    INSERT INTO node_visits
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), node_key
    FROM (${childRows(details, 'node_path', NODE_PATH_SHAPE)})`);
}

/** The tables whose rows belong to one conversation each (by conversation_id). */
export const CHILD_TABLES = ['transcript_turns', 'tool_calls', 'node_visits'] as const;

/** Re-derives everything derived from the raw bodies (public tables, agent history and is_final), in one transaction. */
export async function rebuild(db: Database): Promise<void> {
  await db.transaction(async () => {
    await db.run(`UPDATE raw_conversations SET is_final = ${DETAIL_IS_FINAL}`);
    await db.run('DELETE FROM conversations');
    await insertConversationRows(db, STORED_INPUTS);
    for (const table of CHILD_TABLES) await db.run(`DELETE FROM ${table}`);
    await insertChildRows(db, STORED_INPUTS.details);
    await deriveSpaceConfig(db);
  });
}
