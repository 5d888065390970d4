// The search tokenizer, as SQL: the index is written by SQL over the turns just stored, and a
// query is tokenized by the same SQL, so a document and a query can never be read differently.
//
// A turn's terms: its text lower-cased (Unicode), apostrophes (' and ’) removed, split into runs
// of Unicode letters, digits and combining marks; words of the stopword list dropped; each
// remaining word stemmed by the S-stemmer (plurals only: Harman 1991):
//   -ies → -y (not -eies, -aies), -es → -e (not -aes, -ees, -oes), -s → '' (not -us, -ss),
//   each only for words longer than three characters.

import { sqlText } from '../sql.js';

/** Words too common to search for. Negations (no, not, never) stay: "not received" means something. */
export const STOPWORDS = [
  'a', 'an', 'and', 'am', 'are', 'as', 'at', 'be', 'by', 'do', 'for', 'from', 'he', 'i', 'in', 'is', 'it',
  'its', 'me', 'my', 'of', 'on', 'or', 'our', 'she', 'so', 'that', 'the', 'they', 'this', 'to', 'was', 'we',
  'were', 'with', 'you', 'your',
] as const;

/** What separates words: anything but a letter, digit or combining mark. */
export const WORD_SEPARATOR = String.raw`[^\p{L}\p{N}\p{M}]+`;

/** A word as the snippet finds it in the text (apostrophes inside it, as the tokenizer drops them). */
export const WORD_IN_TEXT = String.raw`[\p{L}\p{N}\p{M}'’]+`;

/** SQL: `text` lower-cased with apostrophes removed (before it is split into words). */
export function foldSql(text: string): string {
  return `replace(replace(lower(${text}), '''', ''), '’', '')`;
}

/** SQL: the word `w` (already folded) stemmed. */
export function stemSql(w: string): string {
  const ends = (s: string) => `suffix(${w}, '${s}')`;
  return `CASE
      WHEN length(${w}) <= 3 THEN ${w}
      WHEN ${ends('ies')} AND NOT (${ends('eies')} OR ${ends('aies')}) THEN left(${w}, length(${w}) - 3) || 'y'
      WHEN ${ends('es')} AND NOT (${ends('aes')} OR ${ends('ees')} OR ${ends('oes')}) THEN left(${w}, length(${w}) - 1)
      WHEN ${ends('s')} AND NOT (${ends('us')} OR ${ends('ss')}) THEN left(${w}, length(${w}) - 1)
      ELSE ${w} END`;
}

/** SQL: whether the folded word `w` is a term at all (not empty, not a stopword). */
export function isTermSql(w: string): string {
  return `(${w} <> '' AND ${w} NOT IN (${STOPWORDS.map(sqlText).join(', ')}))`;
}

/** SQL: the terms of the text `text` (an expression), in order, as a list (NULL for NULL text). */
export function termListSql(text: string): string {
  return `list_transform(list_filter(string_split_regex(${foldSql(text)}, ${sqlText(WORD_SEPARATOR)}), w -> ${isTermSql('w')}), w -> ${stemSql('w')})`;
}

/** SQL: the distinct terms of the query text `query` (an expression, e.g. a parameter), as a sorted list. */
export function queryTermsSql(query: string): string {
  return `coalesce(list_sort(list_distinct(${termListSql(query)})), [])`;
}

/**
 * SQL: a temporary macro `search_query_terms(text)` giving a text's distinct terms as a list,
 * for reports (sql/search_matches.sql) that take a query as a parameter.
 */
export const SEARCH_MACRO_SQL = `CREATE OR REPLACE TEMP MACRO search_query_terms(query_text) AS ${queryTermsSql('query_text')}`;
