-- turn_loops: the turns of the filtered conversations with what the loop reports ask of them
--
-- One row: one transcript turn of a filtered conversation (filtered_turns).
--
-- Columns:
--   conversation_id, seq, spoken_at, speaker, node_key, space, agent_id, outcome   as in filtered_turns
--   node_entries   how many times the conversation entered this turn's node (node_visits); a
--                  node entered more than --loop-visits times is a loop
--   repeats        an agent turn whose text an earlier agent turn of the conversation already
--                  said, character for character

WITH entries AS (
  SELECT conversation_id, node_key, count(*) AS node_entries
  FROM filtered_node_visits
  GROUP BY conversation_id, node_key
)
SELECT t.conversation_id, t.seq, t.spoken_at, t.speaker, t.node_key, t.space, t.agent_id, t.outcome,
       coalesce(e.node_entries, 0) AS node_entries,
       t.speaker = 'agent'
         AND row_number() OVER (PARTITION BY t.conversation_id, t.speaker, t.text ORDER BY t.seq) > 1 AS repeats
FROM filtered_turns t
LEFT JOIN entries e ON e.conversation_id = t.conversation_id AND e.node_key = t.node_key
