// What reports read of each transcript turn (transcript_turns.words, response_sec, repeat_of_seq,
// agent_run, turns_after), of each node visit (node_visits.entry_no) and of each conversation
// (conversation_figures), worked out once when the
// rows are stored, so that a report aggregates columns instead of joining every turn with its
// neighbours or counting every row of a conversation at each run. Pure: the same rules serve the
// write path, `rebuild`, and (as SQL) the migration of a database stored before them.

import type { TurnRow } from './normalise.js';
import { conversationKeySql } from './conversation-key.js';

export interface TurnFigures {
  /** runs of characters other than space, tab, line feed, carriage return and form feed; null without text */
  words: number | null;
  /**
   * for an agent turn right after a caller turn: the caller turn's time, from which the answer is
   * timed (`response_sec`, cast by DuckDB as `spoken_at` is); null otherwise
   */
  answersCallerAt: string | null;
  /** for an agent turn whose text an earlier agent turn said, character for character: that turn's seq */
  repeatOfSeq: number | null;
  /** for an agent turn: its place (1, 2, …) in the run of agent turns right before it and it; null otherwise */
  agentRun: number | null;
  /** turns after this one in the transcript (0: the last), so that "the last K turns" is a filter */
  turnsAfter: number;
}

const WORD = /[^ \t\n\r\f]+/g;

export function countWords(text: string): number {
  return text.match(WORD)?.length ?? 0;
}

/** The figures of each turn of one transcript, in its order (seq = index). */
export function turnFigures(turns: readonly TurnRow[]): TurnFigures[] {
  const firstSaid = new Map<string, number>();
  let run = 0;
  return turns.map((t, seq) => {
    const agent = t.speaker === 'agent';
    run = agent ? run + 1 : 0;
    let repeatOfSeq: number | null = null;
    if (agent && t.text !== null) {
      const first = firstSaid.get(t.text);
      if (first === undefined) firstSaid.set(t.text, seq);
      else repeatOfSeq = first;
    }
    const before = seq > 0 ? turns[seq - 1]! : null;
    return {
      words: t.text === null ? null : countWords(t.text),
      answersCallerAt: agent && before?.speaker === 'caller' ? before.at : null,
      repeatOfSeq,
      agentRun: agent ? run : null,
      turnsAfter: turns.length - 1 - seq,
    };
  });
}

/**
 * The same figures in SQL, over a relation of turns (conversation_id, seq, spoken_at, speaker,
 * text, node_key) whose seq run 0, 1, … per conversation: the migration's rule.
 */
export function turnFiguresSql(turns: string): string {
  return `SELECT conversation_id, seq, spoken_at, speaker, text, node_key,
  CASE WHEN text IS NOT NULL THEN len(regexp_extract_all(text, '[^ \\t\\n\\r\\f]+')) END::INTEGER AS words,
  CASE WHEN speaker = 'agent' AND lag(speaker) OVER (PARTITION BY conversation_id ORDER BY seq) = 'caller'
       THEN (epoch_ms(spoken_at) - epoch_ms(lag(spoken_at) OVER (PARTITION BY conversation_id ORDER BY seq))) / 1000.0 END AS response_sec,
  CASE WHEN speaker = 'agent' AND text IS NOT NULL
       THEN nullif(min(seq) OVER (PARTITION BY conversation_id, speaker, text), seq) END::INTEGER AS repeat_of_seq,
  CASE WHEN speaker = 'agent'
       THEN seq - coalesce(max(CASE WHEN speaker IS DISTINCT FROM 'agent' THEN seq END) OVER (
              PARTITION BY conversation_id ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), -1) END::INTEGER AS agent_run,
  (count(*) OVER (PARTITION BY conversation_id) - 1 - seq)::INTEGER AS turns_after,
  ${conversationKeySql('conversation_id')} AS conversation_key
FROM ${turns}`;
}

/**
 * One conversation's figures (conversation_figures), from its stored rows: what
 * filtered_conversations and talk_share would otherwise aggregate from every row at each run.
 */
export interface ConversationFigures {
  turns: number;
  agent_turns: number;
  caller_turns: number;
  agent_words: number;
  caller_words: number;
  longest_agent_run: number;
  node_visits: number;
  /** node_key and time of the last node_path entry */
  last_node: string | null;
  last_node_at: string | null;
  tool_calls: number;
  /** tool calls whose status is not `ok` (none included) */
  failed_tool_calls: number;
}

/**
 * The figures of a conversation with at least one turn, node visit or tool call (null without):
 * `figures` are its turns' (turnFigures).
 */
export function conversationFigures(
  turns: readonly TurnRow[],
  figures: readonly TurnFigures[],
  visits: readonly { at: string | null; node_key: string | null }[],
  toolCalls: readonly { status: string | null }[],
): ConversationFigures | null {
  if (turns.length === 0 && visits.length === 0 && toolCalls.length === 0) return null;
  const sum = (speaker: string, f: (i: number) => number) => turns.reduce((s, t, i) => (t.speaker === speaker ? s + f(i) : s), 0);
  const last = visits.at(-1);
  return {
    turns: turns.length,
    agent_turns: sum('agent', () => 1),
    caller_turns: sum('caller', () => 1),
    agent_words: sum('agent', (i) => figures[i]!.words ?? 0),
    caller_words: sum('caller', (i) => figures[i]!.words ?? 0),
    longest_agent_run: figures.reduce((m, f) => Math.max(m, f.agentRun ?? 0), 0),
    node_visits: visits.length,
    last_node: last?.node_key ?? null,
    last_node_at: last?.at ?? null,
    tool_calls: toolCalls.length,
    failed_tool_calls: toolCalls.filter((c) => c.status !== 'ok').length,
  };
}

/**
 * Each node visit's entry number: 1 for the conversation's first entry into its node, 2 for the
 * second, …; visits without a node_key are counted as one node, as SQL's PARTITION BY does.
 */
export function visitEntries(visits: readonly { node_key: string | null }[]): number[] {
  const entered = new Map<string | null, number>();
  return visits.map((v) => {
    const n = (entered.get(v.node_key) ?? 0) + 1;
    entered.set(v.node_key, n);
    return n;
  });
}

/** SQL: the entry number of each row of `node_visits` (visitEntries), the migration's rule. */
export const VISIT_ENTRY_SQL = 'row_number() OVER (PARTITION BY conversation_id, node_key ORDER BY seq)::INTEGER';

/**
 * The same figures in SQL, from the stored turns (with their figures), node visits and tool calls:
 * the migration's rule, for the conversations whose rows `where` selects (a part of them at a time).
 */
export function conversationFiguresSql(where = 'true'): string {
  return `
WITH t AS (
  SELECT conversation_id, count(*) AS turns,
         count(*) FILTER (WHERE speaker = 'agent') AS agent_turns,
         count(*) FILTER (WHERE speaker = 'caller') AS caller_turns,
         coalesce(sum(words) FILTER (WHERE speaker = 'agent'), 0) AS agent_words,
         coalesce(sum(words) FILTER (WHERE speaker = 'caller'), 0) AS caller_words,
         coalesce(max(agent_run), 0) AS longest_agent_run
  FROM transcript_turns WHERE ${where} GROUP BY conversation_id
),
v AS (
  SELECT conversation_id, count(*) AS node_visits, arg_max(node_key, seq) AS last_node, arg_max(entered_at, seq) AS last_node_at
  FROM node_visits WHERE ${where} GROUP BY conversation_id
),
k AS (
  SELECT conversation_id, count(*) AS tool_calls, count(*) FILTER (WHERE status IS DISTINCT FROM 'ok') AS failed_tool_calls
  FROM tool_calls WHERE ${where} GROUP BY conversation_id
)
SELECT conversation_id,
       coalesce(t.turns, 0)::INTEGER AS turns, coalesce(t.agent_turns, 0)::INTEGER AS agent_turns,
       coalesce(t.caller_turns, 0)::INTEGER AS caller_turns, coalesce(t.agent_words, 0)::BIGINT AS agent_words,
       coalesce(t.caller_words, 0)::BIGINT AS caller_words, coalesce(t.longest_agent_run, 0)::INTEGER AS longest_agent_run,
       coalesce(v.node_visits, 0)::INTEGER AS node_visits, v.last_node, v.last_node_at,
       coalesce(k.tool_calls, 0)::INTEGER AS tool_calls, coalesce(k.failed_tool_calls, 0)::INTEGER AS failed_tool_calls,
       ${conversationKeySql('conversation_id')} AS conversation_key
FROM t FULL JOIN v USING (conversation_id) FULL JOIN k USING (conversation_id)`;
}

export const CONVERSATION_FIGURES_SQL = conversationFiguresSql();

export const CONVERSATION_FIGURES_DDL = `CREATE TABLE IF NOT EXISTS conversation_figures (
  conversation_id VARCHAR NOT NULL,
  turns INTEGER NOT NULL,
  agent_turns INTEGER NOT NULL,
  caller_turns INTEGER NOT NULL,
  agent_words BIGINT NOT NULL,
  caller_words BIGINT NOT NULL,
  longest_agent_run INTEGER NOT NULL,
  node_visits INTEGER NOT NULL,
  last_node VARCHAR,
  last_node_at TIMESTAMPTZ,
  tool_calls INTEGER NOT NULL,
  failed_tool_calls INTEGER NOT NULL,
  conversation_key UUID
);`;
