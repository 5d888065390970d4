// The search index's tables (docs/schema.md): built from transcript_turns by SQL (tokenize.ts)
// and kept with them, so `convoduck search` ranks turns by BM25 without DuckDB's fts extension.
// They hold the words of the transcripts (personal data): erasure deletes their rows too.

import { termListSql } from './tokenize.js';

/**
 * SQL that indexes the turns of `source` (conversation_id, seq, text; seq may be text) that
 * `where` selects: one tokenizing pass into a temp table of each turn's terms, from which both
 * tables are filled.
 */
export function indexTurnsSql(source: string, where = 'true'): string {
  return `
CREATE OR REPLACE TEMP TABLE _search_rows AS
  SELECT conversation_id, seq::INTEGER AS seq, coalesce(${termListSql('text')}, []) AS terms FROM ${source} WHERE ${where};
INSERT INTO search_turns SELECT conversation_id, seq, len(terms)::INTEGER FROM _search_rows;
INSERT INTO search_terms
  SELECT term, conversation_id, seq, count(*)::INTEGER, any_value(turn_terms)::INTEGER
  FROM (SELECT conversation_id, seq, unnest(terms) AS term, len(terms) AS turn_terms FROM _search_rows)
  GROUP BY term, conversation_id, seq;
DROP TABLE _search_rows;`;
}

/** Parts the whole index is built in: each part's terms are counted in memory (or spilled) at once. */
const INDEX_ALL_PARTS = 16;

/** The index tables, both keyed by (conversation_id, seq) of transcript_turns. */
export const SEARCH_TABLES = ['search_terms', 'search_turns'] as const;

export const SEARCH_DDL = `
-- One row per term (tokenize.ts) of each turn: how often the turn holds it (tf), and the turn's
-- length beside it, so that ranking reads one table.
CREATE TABLE IF NOT EXISTS search_terms (
  term VARCHAR NOT NULL,
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  tf INTEGER NOT NULL,
  turn_terms INTEGER NOT NULL
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
${Array.from({ length: INDEX_ALL_PARTS }, (_, part) => indexTurnsSql('transcript_turns', `hash(conversation_id) % ${INDEX_ALL_PARTS} = ${part}`)).join('\n')}`;

/** The schema migration that adds the index to a database without one, filled from its turns. */
export const SEARCH_MIGRATION = `${SEARCH_DDL}\n${INDEX_ALL_SQL}`;
