// The search index's tables (docs/schema.md): built from transcript_turns by SQL (tokenize.ts)
// and kept with them, so `convoduck search` ranks turns by BM25 without DuckDB's fts extension.
// They hold the words of the transcripts (personal data): erasure deletes their rows too.

import { termRowsSql } from './tokenize.js';

/** The index tables, both keyed by (conversation_id, seq) of transcript_turns. */
export const SEARCH_TABLES = ['search_terms', 'search_turns'] as const;

export const SEARCH_DDL = `
-- One row per occurrence of a term in a turn (tokenize.ts): a term said twice is two rows.
CREATE TABLE IF NOT EXISTS search_terms (
  term VARCHAR NOT NULL,
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL
);

-- One row per turn of transcript_turns: how many terms it holds (its length for BM25).
CREATE TABLE IF NOT EXISTS search_turns (
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  terms INTEGER NOT NULL
);`;

/**
 * SQL that indexes every stored turn from scratch: what a database written before the index
 * gets once (its migration), and what a test compares the incremental index with.
 */
export const INDEX_ALL_SQL = `
DELETE FROM search_terms;
DELETE FROM search_turns;
INSERT INTO search_terms SELECT term, conversation_id, seq FROM (${termRowsSql('transcript_turns')});
INSERT INTO search_turns
  SELECT t.conversation_id, t.seq, coalesce(n.terms, 0)::INTEGER
  FROM transcript_turns t
  LEFT JOIN (SELECT conversation_id, seq, count(*) AS terms FROM search_terms GROUP BY ALL) n USING (conversation_id, seq);`;

/** The schema migration that adds the index to a database without one, filled from its turns. */
export const SEARCH_MIGRATION = `${SEARCH_DDL}\n${INDEX_ALL_SQL}`;
