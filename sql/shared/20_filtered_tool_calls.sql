-- filtered_tool_calls: the tool calls of the filtered conversations
--
-- One row: one tool call of a conversation in filtered_conversations.
--
-- Columns:
--   conversation_id, seq, called_at, tool_id, slug, node_key, status, input_redacted,
--   output_redacted, conversation_key     as in tool_calls
--   tool_name                             tool's display name (empty if not in the tools table)
--   failed                                the status is anything other than ok
--   space, agent_id, agent_name, channel, outcome  of the conversation
--   conversation_calls                    the conversation's tool calls in all (its tool_calls in
--                                         filtered_conversations)

SELECT t.conversation_id, t.seq, t.called_at, t.tool_id, t.slug, t.node_key, t.status,
       t.input_redacted, t.output_redacted, t.conversation_key,
       tl.name AS tool_name,
       t.status IS DISTINCT FROM 'ok' AS failed,
       c.space, c.agent_id, c.agent_name, c.channel, c.outcome,
       c.tool_calls AS conversation_calls
FROM tool_calls t
JOIN filtered_conversations c ON c.conversation_key = t.conversation_key
LEFT JOIN tools tl ON tl.id = t.tool_id
