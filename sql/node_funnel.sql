-- Title: Node funnel: how many conversations reach each node, and how they end
--
-- One row: one agent × node that at least one conversation visited, and one for each node of the
-- agent's current workflow that no conversation reached (zero counts: a step nobody gets to).
--
-- Columns:
--   space                   space of the agent
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
--   in_workflow             the node is in the agent's current workflow (false: only in an earlier
--                           flow); empty when the agent's workflow is not stored
--   is_start                the node is the workflow's start node; empty when the workflow is not stored
--
-- Parameters: --since, --until, --agent, --channel (filters).
-- Conversations without a stored detail have no node path and are left out; an agent none of
-- whose conversations has a known node path has no rows.
-- Reads the shared relations node_visitors and flow_nodes (sql/shared/30_*.sql).

WITH with_path AS (
  SELECT space, agent_id, count(*) AS conversations_with_path
  FROM filtered_conversations
  WHERE node_visits > 0
  GROUP BY space, agent_id
),
has_flow AS (
  SELECT DISTINCT agent_id FROM flow_nodes
),
reached AS (
  SELECT
    v.space,
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
    v.in_progress,
    CASE WHEN h.agent_id IS NOT NULL THEN f.node_key IS NOT NULL END       AS in_workflow,
    CASE WHEN h.agent_id IS NOT NULL THEN coalesce(f.is_start, false) END AS is_start
  FROM node_visitors v
  LEFT JOIN with_path p ON p.space IS NOT DISTINCT FROM v.space AND p.agent_id IS NOT DISTINCT FROM v.agent_id
  LEFT JOIN has_flow h ON h.agent_id = v.agent_id
  LEFT JOIN flow_nodes f ON f.agent_id = v.agent_id AND f.node_key = v.node_key
),
unreached AS (
  SELECT
    f.space,
    f.agent_id,
    f.agent_name,
    f.node_key,
    0                                          AS conversations_reached,
    ratio(0, p.conversations_with_path)        AS reach_rate,
    0 AS visits, 0 AS ended_here, 0 AS completed, 0 AS transferred, 0 AS hung_up, 0 AS failed,
    0 AS other, 0 AS in_progress,
    true                                       AS in_workflow,
    f.is_start
  FROM flow_nodes f
  LEFT JOIN with_path p ON p.agent_id = f.agent_id
  WHERE NOT EXISTS (SELECT 1 FROM node_visitors v WHERE v.agent_id = f.agent_id AND v.node_key = f.node_key)
)
SELECT * FROM reached
UNION ALL
SELECT * FROM unreached
ORDER BY agent_id NULLS LAST, space, conversations_reached DESC, node_key NULLS LAST
