-- Title: Who talks: the agent's share of the words, its longest monologue, the caller's pace
--
-- One row: one agent × channel with ended conversations that have a transcript. A word is a run
-- of characters other than blanks (space, tab, line breaks), so a language written without
-- spaces counts one word per phrase. Turns of speakers other than agent and caller count for
-- nothing.
--
-- Columns:
--   space                           space of the agent
--   agent_id                        agent
--   agent_name                      agent's name
--   channel                         voice or chat
--   conversations                   ended conversations with at least one turn
--   agent_turns                     turns spoken by the agent
--   caller_turns                    turns spoken by the caller
--   agent_words                     words the agent said
--   caller_words                    words the caller said
--   agent_word_share                agent_words ÷ (agent_words + caller_words)
--   median_agent_word_share         median over the conversations of the same share (those with words)
--   longest_agent_run               most agent turns in a row (no other speaker's turn between), in any conversation
--   median_longest_agent_run        median over the conversations of their longest run
--   caller_turns_per_minute         caller_turns ÷ minutes of duration_sec, over the conversations
--                                   that lasted more than 0 s
--   median_caller_turns_per_minute  median over those conversations of the same pace
--
-- Parameters: --since, --until, --agent, --channel (filters).

WITH joined AS (
  -- the counts are worked out as the conversation's turns are stored (conversation_figures)
  SELECT c.space, c.agent_id, c.channel, c.duration_sec,
         f.agent_turns, f.caller_turns, f.agent_words, f.caller_words, f.longest_agent_run,
         ratio(f.agent_words, f.agent_words + f.caller_words) AS agent_word_share,
         CASE WHEN c.duration_sec > 0 THEN f.caller_turns / (c.duration_sec / 60.0) END AS caller_turns_per_minute
  FROM filtered_conversations c
  JOIN conversation_figures f ON f.conversation_key = c.conversation_key
  WHERE c.outcome IS NOT NULL AND f.agent_turns + f.caller_turns > 0
)
SELECT j.space, j.agent_id, a.name AS agent_name, j.channel,
       count(*)                                                       AS conversations,
       sum(j.agent_turns)::BIGINT                                     AS agent_turns,
       sum(j.caller_turns)::BIGINT                                    AS caller_turns,
       sum(j.agent_words)::BIGINT                                     AS agent_words,
       sum(j.caller_words)::BIGINT                                    AS caller_words,
       ratio(sum(j.agent_words), sum(j.agent_words) + sum(j.caller_words)) AS agent_word_share,
       quantile_cont(j.agent_word_share, 0.5)                         AS median_agent_word_share,
       max(j.longest_agent_run)                                       AS longest_agent_run,
       quantile_cont(j.longest_agent_run, 0.5)                        AS median_longest_agent_run,
       ratio(sum(j.caller_turns) FILTER (WHERE j.duration_sec > 0),
             sum(j.duration_sec) FILTER (WHERE j.duration_sec > 0) / 60.0) AS caller_turns_per_minute,
       quantile_cont(j.caller_turns_per_minute, 0.5)                  AS median_caller_turns_per_minute
FROM joined j
LEFT JOIN agents a ON a.id = j.agent_id
GROUP BY j.space, j.agent_id, a.name, j.channel
ORDER BY j.agent_id NULLS LAST, j.space, j.channel
