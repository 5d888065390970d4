-- answers: every agent turn that answers a caller turn, and how long after it it began
--
-- One row: one agent turn of a filtered conversation whose previous turn (by seq) is a caller's.
-- A turn's time (spoken_at) is when it began: the response time runs from the start of the
-- caller's turn to the start of the agent's, so on voice it includes how long the caller spoke;
-- when the caller spoke several turns in a row, it runs from the last of them.
--
-- Columns:
--   conversation_id, seq   the agent turn
--   space, agent_id, channel, outcome   of the conversation
--   node_key               node of the agent turn (where the answer was given)
--   spoken_at              when the answer began
--   response_sec           seconds from the caller turn's start to the answer's start; empty when
--                          either time is unknown

WITH ordered AS (
  SELECT conversation_id, seq, spoken_at, speaker, node_key, space, agent_id, channel, outcome,
         lag(speaker) OVER w AS previous_speaker,
         lag(spoken_at) OVER w AS previous_spoken_at
  FROM filtered_turns
  WINDOW w AS (PARTITION BY conversation_id ORDER BY seq)
)
SELECT conversation_id, seq, space, agent_id, channel, outcome, node_key, spoken_at,
       (epoch_ms(spoken_at) - epoch_ms(previous_spoken_at)) / 1000.0 AS response_sec
FROM ordered
WHERE speaker = 'agent' AND previous_speaker = 'caller'
