-- Title: Node funnel: how many conversations reach each node, and how they end
--
-- One row: one agent × node that at least one conversation visited.
--
-- Columns:
--   agent_id                agent
--   agent_name              agent's name
--   node_key                node
--   conversations_reached   conversations that visited the node at least once
--   reach_rate              conversations_reached ÷ the agent's conversations with a known node path
--   visits                  visits in total (a conversation can come back to a node)
--   ended_here              conversations whose last node is this one
--   completed               reached conversations with outcome completed
--   transferred             … transferred
--   hung_up                 … hung_up
--   failed                  … failed
--   other                   … an outcome the spec does not list
--   in_progress             … no outcome yet
--
-- Parameters: --from, --to, --agent, --channel (filters).
-- Conversations without a stored detail have no node path and are left out.
-- Reads the shared relation node_visitors (sql/shared/30_node_visitors.sql).

WITH with_path AS (
  SELECT agent_id, count(*) AS conversations_with_path
  FROM filtered_conversations
  WHERE node_visits > 0
  GROUP BY agent_id
)
SELECT
  v.agent_id,
  v.agent_name,
  v.node_key,
  v.conversations_visited                                  AS conversations_reached,
  ratio(v.conversations_visited, p.conversations_with_path) AS reach_rate,
  v.visits,
  v.ended_here,
  v.completed,
  v.transferred,
  v.hung_up,
  v.failed,
  v.other,
  v.in_progress
FROM node_visitors v
LEFT JOIN with_path p ON p.agent_id IS NOT DISTINCT FROM v.agent_id
ORDER BY v.agent_id NULLS LAST, conversations_reached DESC, v.node_key NULLS LAST
