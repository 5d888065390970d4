// The erasure log, which is also the tombstone list: one row per conversation erased. Listing
// pages leave these ids out (tombstone.ts), so no later sync stores or fetches them again. It
// holds the id (an API identifier, not personal data), never the conversation's content or the
// text it was matched by: at most a keyed hash of that selector, when a redaction key is set.

export const ERASURE_RULES = ['id', 'session_ref', 'match', 'retention', 'deleted_at_source'] as const;
export type ErasureRule = (typeof ERASURE_RULES)[number];

export const ERASURES_DDL = `CREATE TABLE IF NOT EXISTS erasures (
  id VARCHAR NOT NULL,
  space VARCHAR,
  erased_at TIMESTAMPTZ NOT NULL,
  rule VARCHAR NOT NULL,
  selector_hash VARCHAR
);`;

/**
 * Every table that holds rows of a conversation, with the column naming it. erase.ts deletes from
 * each; a test holds every table of the schema with such a column to this list.
 */
export const CONVERSATION_ROW_TABLES: readonly (readonly [table: string, column: string])[] = [
  ['raw_listed_conversations', 'id'],
  ['raw_conversations', 'id'],
  ['raw_conversation_parts', 'id'],
  ['deleted_conversations', 'id'],
  ['conversations', 'id'],
  ['transcript_turns', 'conversation_id'],
  ['tool_calls', 'conversation_id'],
  ['node_visits', 'conversation_id'],
  ['detail_drift', 'conversation_id'],
  ['conversation_figures', 'conversation_id'],
  // the search index holds the transcripts' words
  ['search_terms', 'conversation_id'],
  ['search_turns', 'conversation_id'],
  ['sync_errors', 'conversation_id'],
];
