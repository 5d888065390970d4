// `convoduck search`: the transcript turns that best match a query, ranked by BM25 over the
// search index (schema.ts), read-only, and written by the output code `query` uses.

import { DOUBLE, INTEGER, LIST, TIMESTAMPTZ, VARCHAR, listValue, timestampTZValue, type DuckDBConnection } from '@duckdb/node-api';
import type { Writable } from 'node:stream';
import { OutputSink } from '../output/sink.js';
import { sessionWallClock } from '../output/values.js';
import { writeResult } from '../output/result.js';
import type { QueryFormat } from '../output/formats.js';
import type { Redaction } from '../redact/outputs.js';
import type { ReportFilters } from '../filters/params.js';
import { resolveParams } from '../filters/resolve.js';
import { InvalidInputError } from '../shared/errors.js';
import { withReadOnlyDatabase, type ReadTarget } from '../store/read-only.js';
import { foldSql, queryTermsSql, stemSql, WORD_IN_TEXT } from '../store/search-index/tokenize.js';
import { sqlText } from '../store/sql.js';

/** BM25's term-frequency saturation and length normalisation (the usual values). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Words of context the snippet shows before the first matched word, and pieces (words and gaps) in all. */
const SNIPPET_BEFORE = 12;
const SNIPPET_PIECES = 48;

export interface SearchFilters extends Pick<ReportFilters, 'from' | 'to' | 'agents' | 'channel' | 'tz' | 'spaces'> {
  /** only turns of this speaker (caller, agent) */
  speaker?: string | null;
}

export interface SearchOptions {
  query: string;
  limit: number;
  filters: SearchFilters;
  format: QueryFormat;
  out?: Writable;
  maxCellWidth?: number;
  raw?: boolean;
  redaction?: Redaction | null;
  lockTimeoutMs?: number;
  onWait?: () => void;
}

export interface SearchResult {
  /** the query's terms, as the tokenizer read them */
  terms: string[];
  rows: number;
  truncated: boolean;
}

/**
 * The ranking. Returns, best first, the turns holding any of $terms, of conversations the
 * filters select: score (BM25, k1 $k1, b $b, idf ln(1 + (N − df + 0.5) / (df + 0.5)); N, df and
 * the mean length over every indexed turn the --space selection holds), the turn and its
 * conversation, and a snippet with the matched words between « ».
 */
const RANKING_SQL = `
WITH
stats AS (SELECT count(*)::DOUBLE AS n, coalesce(avg(terms), 0)::DOUBLE AS avgdl FROM search_turns),
hits AS (SELECT * FROM search_terms WHERE term IN (/*term list*/)),
df AS (SELECT term, count(*)::DOUBLE AS df FROM hits GROUP BY term),
scored AS (
  SELECT h.conversation_id, h.seq,
         sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5))
             * h.tf * ($k1 + 1) / (h.tf + $k1 * (1 - $b + $b * h.turn_terms / s.avgdl))) AS score
  FROM hits h JOIN df USING (term) CROSS JOIN stats s
  GROUP BY h.conversation_id, h.seq),
ranked AS (
  SELECT s.* FROM scored s
  /*conversation*/ JOIN conversations c ON c.id = s.conversation_id
  /*turn*/ JOIN transcript_turns t ON t.conversation_id = s.conversation_id AND t.seq = s.seq
  WHERE ($from IS NULL OR c.started_at >= $from)
    AND ($to IS NULL OR c.started_at < $to)
    AND ($agents IS NULL OR list_contains($agents, c.agent_id))
    AND ($channel IS NULL OR c.channel = $channel)
    AND ($speaker IS NULL OR t.speaker = $speaker)
  ORDER BY s.score DESC, s.conversation_id, s.seq
  LIMIT $limit),
picked AS (
  SELECT r.score, c.space, c.agent_id, r.conversation_id, r.seq, t.spoken_at, t.speaker, t.node_key, t.text
  FROM ranked r
  JOIN conversations c ON c.id = r.conversation_id
  JOIN transcript_turns t ON t.conversation_id = r.conversation_id AND t.seq = r.seq),
pieces AS (
  SELECT *, regexp_extract_all(regexp_replace(coalesce(text, ''), '\\s+', ' ', 'g'), ${sqlText(`${WORD_IN_TEXT}|[^${WORD_IN_TEXT.slice(1)}`)}) AS p
  FROM picked),
marked AS (
  SELECT *, list_transform(p, x -> list_contains($terms, ${stemSql(foldSql('x'))})) AS m FROM pieces),
windowed AS (
  SELECT *, greatest(1, coalesce(list_position(m, true), 1) - ${SNIPPET_BEFORE}) AS lo FROM marked)
SELECT row_number() OVER (ORDER BY w.score DESC, w.conversation_id, w.seq)::INTEGER AS rank,
       round(w.score, 6) AS score,
       w.space, w.agent_id, a.name AS agent_name, w.conversation_id, w.seq, w.spoken_at, w.speaker, w.node_key,
       trim(CASE WHEN w.lo > 1 THEN '…' ELSE '' END
            || array_to_string(list_transform(range(w.lo, least(len(w.p), w.lo + ${SNIPPET_PIECES - 1}) + 1),
                                              i -> CASE WHEN w.m[i] THEN '«' || w.p[i] || '»' ELSE w.p[i] END), '')
            || CASE WHEN len(w.p) > w.lo + ${SNIPPET_PIECES - 1} THEN '…' ELSE '' END) AS snippet
FROM windowed w LEFT JOIN agents a ON a.id = w.agent_id
ORDER BY rank`;

/**
 * The ranking with only the joins its filters need before the LIMIT (a query of common words
 * scores many turns, and joining each to its conversation and turn costs more than the ranking),
 * and the query's terms as parameters $t0, $t1, ….
 */
export function rankingSql(filters: { conversation: boolean; turn: boolean; terms: number }): string {
  const keep = (line: string, needed: boolean): string => (needed ? line : '');
  // one parameter per term: a list of constants is filtered in the scan, a subquery joined after it
  const termList = Array.from({ length: filters.terms }, (_, i) => `$t${i}`).join(', ');
  const lines = RANKING_SQL.replace('/*term list*/', termList).split('\n').map((line) => {
    if (line.includes('/*conversation*/')) return keep(line, filters.conversation);
    if (line.includes('/*turn*/')) return keep(line, filters.turn);
    if (!filters.conversation && /\$(from|to|agents|channel) IS NULL/.test(line)) return line.replace(/^(\s*)(WHERE|AND) .*$/, '$1$2 true');
    if (!filters.turn && line.includes('$speaker IS NULL')) return line.replace(/^(\s*)(WHERE|AND) .*$/, '$1$2 true');
    return line;
  });
  return lines.join('\n');
}

/** The query's terms as the index reads them (distinct, sorted). */
export async function queryTerms(connection: DuckDBConnection, query: string): Promise<string[]> {
  const reader = await connection.runAndReadAll(`SELECT ${queryTermsSql('$query')} AS terms`, { query }, { query: VARCHAR });
  const terms = reader.getRowObjectsJS()[0]?.terms;
  return Array.isArray(terms) ? terms.map(String) : [];
}

/** Runs a search and streams its rows to `options.out` (stdout by default). */
export async function searchTurns(dbPath: ReadTarget, options: SearchOptions): Promise<SearchResult> {
  if (options.query.trim() === '') throw new InvalidInputError('the search query is empty: give the words to look for, e.g. convoduck search "refund not received"');
  return withReadOnlyDatabase(dbPath, { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait }, async (db, attempt) => {
    const params = await resolveParams(db.connection, options.filters);
    const terms = await queryTerms(db.connection, options.query);
    if (terms.length === 0) {
      throw new InvalidInputError(
        `the search query ${JSON.stringify(options.query)} holds no word the index keeps (only stopwords or punctuation): add a more specific word`,
      );
    }
    const sql = rankingSql({
      conversation: params.from !== null || params.to !== null || params.agents !== null || params.channel !== null,
      turn: (options.filters.speaker ?? null) !== null,
      terms: terms.length,
    });
    const termValues = Object.fromEntries(terms.map((term, i) => [`t${i}`, term]));
    const termTypes = Object.fromEntries(terms.map((_, i) => [`t${i}`, VARCHAR]));
    const mentioned = <T>(all: Record<string, T>): Record<string, T> =>
      Object.fromEntries(Object.entries(all).filter(([name]) => new RegExp(`\\$${name}\\b`).test(sql)));
    const result = await db.connection.stream(
      sql,
      mentioned({
        ...termValues,
        terms: listValue(terms),
        k1: BM25_K1,
        b: BM25_B,
        from: params.from ? timestampTZValue(BigInt(params.from.getTime()) * 1000n) : null,
        to: params.to ? timestampTZValue(BigInt(params.to.getTime()) * 1000n) : null,
        agents: params.agents ? listValue(params.agents) : null,
        channel: params.channel,
        speaker: options.filters.speaker ?? null,
        limit: options.limit,
      }),
      mentioned({
        ...termTypes,
        terms: LIST(VARCHAR),
        k1: DOUBLE,
        b: DOUBLE,
        from: TIMESTAMPTZ,
        to: TIMESTAMPTZ,
        agents: LIST(VARCHAR),
        channel: VARCHAR,
        speaker: VARCHAR,
        limit: INTEGER,
      }),
    );
    const sink = new OutputSink(options.out ?? process.stdout);
    try {
      const rows = await writeResult(result, { ...options, wallClock: sessionWallClock('UTC') }, sink, () => {
        attempt.committed = true;
      });
      await sink.end();
      return { terms, rows, truncated: sink.closed };
    } catch (err) {
      await sink.end().catch(() => undefined);
      throw err;
    }
  });
}

