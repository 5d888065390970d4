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
--                       set_aside (body kept raw, not stored as rows), deleted (deleted at the
--                       source before its detail was stored) or missing (not fetched yet)
--   deleted_at          when convoduck saw it deleted at the source (empty otherwise)
--   summary             the API's summary (absent in confidential spaces)
--
-- Parameters: --since, --until, --agent, --channel (filters).

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
  deleted_at,
  summary
FROM filtered_conversations
ORDER BY started_at DESC NULLS LAST, id
