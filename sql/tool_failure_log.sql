-- Title: Every failed tool call, newest first
--
-- One row: one tool call whose status is anything other than `ok`.
--
-- Columns:
--   space              space the conversation belongs to
--   conversation_id    conversation the call happened in
--   seq                position of the call in the conversation's tool_calls (0-based)
--   called_at          when the call was made (UTC)
--   agent_id           agent
--   agent_name         agent's name
--   slug               tool's machine name
--   tool_name          tool's display name
--   node_key           node the conversation was in
--   status             the call's status (empty if the API sent none)
--   output_redacted    what the tool returned, as JSON, with secrets redacted by the API
--
-- Parameters: --since, --until, --agent, --channel (filters; by the conversation's start).

SELECT
  space,
  conversation_id,
  seq,
  called_at,
  agent_id,
  agent_name,
  slug,
  tool_name,
  node_key,
  status,
  output_redacted
FROM filtered_tool_calls
WHERE failed
ORDER BY called_at DESC NULLS LAST, conversation_id, seq
