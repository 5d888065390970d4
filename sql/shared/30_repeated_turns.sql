-- repeated_turns: agent turns that say again what the agent said earlier in the conversation
--
-- One row: one agent turn of a filtered conversation whose text an earlier agent turn of the same
-- conversation already said, character for character.
--
-- Columns:
--   conversation_id, seq, spoken_at, node_key, space, agent_id, outcome,
--   conversation_key                                                     as in filtered_turns

-- the figure is worked out as the turn is stored (transcript_turns.repeat_of_seq)
SELECT conversation_id, seq, spoken_at, node_key, space, agent_id, outcome, conversation_key
FROM filtered_turns
WHERE repeat_of_seq IS NOT NULL
