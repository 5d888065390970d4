-- Title: Every conversation, newest first
--
-- One row: one conversation.
--
-- Columns:
--   space               space the conversation belongs to
--   id                  conversation id
--   started_at          start (UTC)
--   ended_at            end (UTC; empty while in progress)
--   agent_id            agent
--   agent_name          agent's name
--   channel             voice or chat
--   direction           inbound, …
--   outcome             completed, transferred, hung_up, failed, … (empty while in progress)
--   duration_sec        duration in seconds
--   message_count       messages exchanged
--   last_node           node_key of the latest node_path entry (empty when the detail is not stored)
--   node_visits         entries in the node path
--   tool_calls          tool calls made
--   failed_tool_calls   tool calls with a status other than ok
--   detail_status       stored, in_progress (detail fetched before the conversation ended),
--                       invalid (unusable body) or missing (not fetched yet)
--   summary             the API's summary (absent in confidential spaces)
--
-- Parameters: --from, --to, --agent, --channel (filters).

SELECT
  space,
  id,
  started_at,
  ended_at,
  agent_id,
  agent_name,
  channel,
  direction,
  outcome,
  duration_sec,
  message_count,
  last_node,
  node_visits,
  tool_calls,
  failed_tool_calls,
  detail_status,
  summary
FROM filtered_conversations
ORDER BY started_at DESC NULLS LAST, id
