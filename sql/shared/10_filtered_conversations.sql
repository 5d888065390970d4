-- filtered_conversations: the conversations that pass the filters, with per-conversation figures
--
-- One row: one conversation that started in [--since, --until), of an --agent (if given), on
-- --channel (if given). Every report reads the conversations through this relation, so every
-- report sees the same ones.
--
-- Materialized: table (read by nearly every report: built once per run)
--
-- Columns:
--   every column of `conversations`, plus
--   agent_name          agent's name (empty if the agent is not in the agents table)
--   started_local       started_at as a TIMESTAMP in --tz: started_local::DATE for days,
--                       hour(started_local) for hours
--   ended               the conversation has an outcome
--   last_node           node_key of the latest node_path entry (highest seq in node_visits);
--                       empty when the node path is unknown (detail not stored)
--   last_node_at        when the conversation entered that node
--   node_visits         entries in the node path
--   tool_calls          tool calls made
--   failed_tool_calls   tool calls with a status other than ok
--   detail_status       stored, in_progress (detail fetched before the conversation ended),
--                       set_aside (the body could not be stored as rows: kept raw, see
--                       raw_conversations.invalid_reason), deleted (deleted at the source before
--                       its detail was stored) or missing (not fetched yet)
--
-- Parameters: $from, $to, $agents, $channel (the filters), $tz (started_local).

WITH selected AS (
  SELECT *
  FROM conversations c
  WHERE ($from IS NULL OR c.started_at >= $from)
    AND ($to IS NULL OR c.started_at < $to)
    AND ($agents IS NULL OR list_contains($agents, c.agent_id))
    AND ($channel IS NULL OR c.channel = $channel)
)
SELECT
  c.*,
  a.name AS agent_name,
  -- in UTC, arithmetic gives the same wall clock as a time-zone lookup, far faster
  CASE WHEN $tz = 'UTC' AND isfinite(c.started_at) THEN make_timestamp(epoch_us(c.started_at))
       ELSE timezone($tz, c.started_at) END AS started_local,
  c.outcome IS NOT NULL AS ended,
  f.last_node,
  f.last_node_at,
  coalesce(f.node_visits, 0)::INTEGER AS node_visits,
  coalesce(f.tool_calls, 0)::INTEGER AS tool_calls,
  coalesce(f.failed_tool_calls, 0)::INTEGER AS failed_tool_calls,
  CASE
    WHEN c.detail_fetched_at IS NULL AND r.invalid_reason IS NOT NULL THEN 'set_aside'
    WHEN c.detail_fetched_at IS NULL AND c.deleted_at IS NOT NULL THEN 'deleted'
    WHEN c.detail_fetched_at IS NULL THEN 'missing'
    WHEN NOT coalesce(r.is_final, false) THEN 'in_progress'
    ELSE 'stored'
  END AS detail_status
FROM selected c
LEFT JOIN agents a ON a.id = c.agent_id
-- the counts are worked out as the conversation's rows are stored (conversation_figures)
LEFT JOIN conversation_figures f ON f.conversation_key = c.conversation_key
LEFT JOIN raw_conversations r ON r.id = c.id
