-- filtered_node_visits: the node path entries of the filtered conversations
--
-- One row: one entry of the node path (node_visits) of a conversation in filtered_conversations.
-- Conversations whose detail is not stored have no entries.
--
-- Columns:
--   conversation_id, seq, entered_at, node_key, entry_no,
--   conversation_key                                          as in node_visits
--   space, agent_id, channel, outcome, last_node, node_visits  of the conversation (see filtered_conversations)

SELECT v.conversation_id, v.seq, v.entered_at, v.node_key, v.entry_no, v.conversation_key,
       c.space, c.agent_id, c.channel, c.outcome, c.last_node, c.node_visits
FROM node_visits v
JOIN filtered_conversations c ON c.conversation_key = v.conversation_key
