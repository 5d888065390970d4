-- answers: every agent turn that answers a caller turn, and how long after it it began
--
-- One row: one agent turn of a filtered conversation whose previous turn (seq − 1) is a caller's,
-- both with a known time.
-- A turn's time (spoken_at) is when it began: the response time runs from the start of the
-- caller's turn to the start of the agent's, so on voice it includes how long the caller spoke;
-- when the caller spoke several turns in a row, it runs from the last of them.
--
-- Columns:
--   conversation_id, seq   the agent turn
--   space, agent_id, channel, outcome   of the conversation
--   node_key               node of the agent turn (where the answer was given)
--   spoken_at              when the answer began
--   response_sec           seconds from the caller turn's start to the answer's start

-- the figure is worked out as the turn is stored (transcript_turns.response_sec)
SELECT conversation_id, seq, space, agent_id, channel, outcome, node_key, spoken_at, response_sec
FROM filtered_turns
WHERE response_sec IS NOT NULL
