-- repeated_turns: agent turns that say again what the agent said earlier in the conversation
--
-- One row: one agent turn of a filtered conversation whose text an earlier agent turn of the same
-- conversation already said, character for character.
--
-- Columns:
--   conversation_id, seq, spoken_at, node_key, space, agent_id, outcome   as in filtered_turns

WITH said_twice AS (
  SELECT conversation_id, text, min(seq) AS first_seq
  FROM filtered_turns
  WHERE speaker = 'agent'
  GROUP BY conversation_id, text
  HAVING count(*) > 1
)
SELECT t.conversation_id, t.seq, t.spoken_at, t.node_key, t.space, t.agent_id, t.outcome
FROM filtered_turns t
JOIN said_twice s ON s.conversation_id = t.conversation_id AND s.text = t.text AND t.seq > s.first_seq
WHERE t.speaker = 'agent'
