-- answers: every agent turn that answers a caller turn, and how long after it it began
--
-- One row: one agent turn of a filtered conversation whose previous turn (seq − 1) is a caller's.
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

-- a join on seq − 1 rather than a window: turns are numbered 0, 1, … in their transcript
SELECT a.conversation_id, a.seq, a.space, a.agent_id, a.channel, a.outcome, a.node_key, a.spoken_at,
       (epoch_ms(a.spoken_at) - epoch_ms(c.spoken_at)) / 1000.0 AS response_sec
FROM filtered_turns a
JOIN transcript_turns c ON c.conversation_id = a.conversation_id AND c.seq = a.seq - 1
WHERE a.speaker = 'agent' AND c.speaker = 'caller'
