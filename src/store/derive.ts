// Derives the public conversation tables from the raw API bodies, entirely inside DuckDB
// (JSON unnesting is DuckDB's job, not ours). The same SQL serves a batch during `sync`
// and the whole database during `rebuild`, so the two can never disagree.

import type { Database, Params } from './database.js';
import { DETAIL_IS_FINAL } from './schema.js';
import { deriveSpaceConfig } from './space-config.js';

/**
 * Which conversations to derive: those with the given ids (a page or batch), or all of them.
 * The ids are bound as parameters of an IN list, which DuckDB answers from the primary-key
 * index; a semi-join against a temp table would scan (and decompress) every raw body instead,
 * so each batch would cost more as the database grows.
 */
export type Scope = 'all' | { ids: readonly string[] };

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

/** `column IN ($1, …, $n)` for a batch (the same numbered parameters may appear several times). */
export function inScope(scope: Scope, column: string): string {
  if (scope === 'all') return 'true';
  if (scope.ids.length === 0) return 'false';
  return `${column} IN (${scope.ids.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/** The parameters `inScope` refers to. */
export function scopeParams(scope: Scope): Params | undefined {
  return scope === 'all' || scope.ids.length === 0 ? undefined : [...scope.ids];
}

/**
 * Details that are usable: valid bodies only (an invalid one is kept raw, never derived).
 *
 * For a batch, the id list is applied alone, in a materialised CTE, and the validity filter after
 * it: once the transaction has written to raw_conversations (saveDetails does, just before), a
 * second filter beside the IN list makes DuckDB scan every stored body instead of looking the ids
 * up in the primary-key index (measured at 100,000 conversations: 0.4 s and +0.5 GB of memory
 * per batch, growing with the database).
 */
function usableDetails(scope: Scope, columns = 'id, body'): string {
  if (scope === 'all') return `SELECT ${columns} FROM raw_conversations WHERE invalid_reason IS NULL AND true`;
  return `WITH batch_details AS MATERIALIZED (
      SELECT ${columns}, invalid_reason FROM raw_conversations WHERE ${inScope(scope, 'id')}
    )
    SELECT ${columns} FROM batch_details WHERE invalid_reason IS NULL`;
}

function childRows(scope: Scope, field: string, shape: string): string {
  return `
    SELECT id AS conversation_id, generate_subscripts(items, 1) - 1 AS seq, unnest(items, recursive := true)
    FROM (
      SELECT id, from_json(json_extract(body, '$.data.${field}'), '${shape}') AS items
      FROM (${usableDetails(scope)})
    )`;
}

/** Re-derives the `conversations` rows in scope from the raw list entries and details. */
export async function deriveConversationRows(db: Database, scope: Scope): Promise<void> {
  const params = scopeParams(scope);
  await db.run(`DELETE FROM conversations ${scope === 'all' ? '' : `WHERE ${inScope(scope, 'id')}`}`, params);
  // The newer of the list entry and the detail wins: a conversation that finished since its
  // detail was fetched shows its final state even before the detail is fetched again.
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
        CASE WHEN d.id IS NOT NULL AND (l.id IS NULL OR d.fetched_at >= l.listed_at)
             THEN json_extract(d.body, '$.data') ELSE l.body END AS rec,
        l.listed_at,
        d.fetched_at AS detail_fetched_at
      FROM (SELECT * FROM raw_listed_conversations WHERE ${inScope(scope, 'id')}) l
      FULL OUTER JOIN (${usableDetails(scope, 'id, space, fetched_at, body')}) d USING (id)
    )`,
    params,
  );
}

/**
 * Re-derives transcript_turns, tool_calls and node_visits in scope. `replace` deletes the old
 * rows first; a batch of first-time details skips that (the delete scans the whole table).
 */
export async function deriveChildRows(db: Database, scope: Scope, replace: boolean): Promise<void> {
  const params = scopeParams(scope);
  if (replace) {
    for (const table of ['transcript_turns', 'tool_calls', 'node_visits']) {
      await db.run(`DELETE FROM ${table} ${scope === 'all' ? '' : `WHERE ${inScope(scope, 'conversation_id')}`}`, params);
    }
  }
  await db.run(`
    INSERT INTO transcript_turns
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), speaker, text, node_key
    FROM (${childRows(scope, 'transcript', TRANSCRIPT_SHAPE)})`,
    params,
  );
  await db.run(`
    INSERT INTO tool_calls
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), tool_id, slug, node_key, status, input_redacted, output_redacted
    FROM (${childRows(scope, 'tool_calls', TOOL_CALL_SHAPE)})`,
    params,
  );
  await db.run(`
    INSERT INTO node_visits
    SELECT conversation_id, seq, try_cast("at" AS TIMESTAMPTZ), node_key
    FROM (${childRows(scope, 'node_path', NODE_PATH_SHAPE)})`,
    params,
  );
}

/** Re-derives everything derived from the raw bodies (public tables, agent history and is_final), in one transaction. */
export async function rebuild(db: Database): Promise<void> {
  await db.transaction(async () => {
    await db.run(`UPDATE raw_conversations SET is_final = ${DETAIL_IS_FINAL}`);
    await deriveConversationRows(db, 'all');
    await deriveChildRows(db, 'all', true);
    await deriveSpaceConfig(db);
  });
}
