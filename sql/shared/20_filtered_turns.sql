-- filtered_turns: the transcript turns of the filtered conversations
--
-- One row: one transcript entry (transcript_turns) of a conversation in filtered_conversations.
-- Conversations whose detail is not stored, or of a confidential space, have none.
--
-- Columns:
--   conversation_id, seq, spoken_at, speaker, text, node_key,
--   words, response_sec, repeat_of_seq, agent_run, turns_after,
--   conversation_key                                              as in transcript_turns
--   space, agent_id, channel, outcome, started_at                 of the conversation

SELECT t.conversation_id, t.seq, t.spoken_at, t.speaker, t.text, t.node_key,
       t.words, t.response_sec, t.repeat_of_seq, t.agent_run, t.turns_after, t.conversation_key,
       c.space, c.agent_id, c.channel, c.outcome, c.started_at
FROM transcript_turns t
-- joined by the 16-byte key: millions of turns compared by their 36-character id take far longer
JOIN filtered_conversations c ON c.conversation_key = t.conversation_key
