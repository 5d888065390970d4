// What the quality reports read of each transcript turn, worked out once when the turn is stored
// (transcript_turns.words, response_sec, repeat_of_seq, agent_run, turns_after) so that a report aggregates
// columns instead of joining every turn with its neighbours. Pure: the same rules serve the
// write path, `rebuild`, and (as SQL) the migration of a database stored before them.

import type { TurnRow } from './normalise.js';

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
  (count(*) OVER (PARTITION BY conversation_id) - 1 - seq)::INTEGER AS turns_after
FROM ${turns}`;
}
