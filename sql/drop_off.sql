-- Title: Where callers hang up: the last node of hung-up conversations
--
-- One row: one agent × node that was the last node of at least one hung_up conversation, and one
-- for every other node of the agent's current workflow (hang_ups 0: nobody hung up there, or
-- nobody reached it). Hung-up conversations whose node path is unknown (no detail stored yet) are
-- one row with an empty node_key, so the shares add up to 1 per agent.
--
-- Columns:
--   space                  space of the agent
--   agent_id               agent
--   agent_name             agent's name
--   node_key               last node of the hung-up conversations
--   hang_ups               hung_up conversations that ended in this node
--   share                  hang_ups ÷ all hang-ups of the agent
--   conversations_visited  conversations of the agent (any outcome) that visited this node
--   exit_rate              hang_ups ÷ conversations_visited: how often a visit ends in a hang-up here
--   in_workflow            the node is in the agent's current workflow (false: only in an earlier
--                          flow); empty when the workflow is not stored or the node_key is empty
--   is_start               the node is the workflow's start node; empty as for in_workflow
--
-- Parameters: --since, --until, --agent, --channel (filters).
-- Reads the shared relations last_node_outcomes, node_visitors and flow_nodes (sql/shared/).

WITH has_flow AS (
  SELECT DISTINCT agent_id FROM flow_nodes
),
hung_up AS (
  SELECT
    o.space,
    o.agent_id,
    o.agent_name,
    o.node_key,
    o.conversations           AS hang_ups,
    o.share_of_outcome        AS share,
    o.conversations_visited,
    o.ended_here_rate         AS exit_rate,
    CASE WHEN h.agent_id IS NOT NULL AND o.node_key IS NOT NULL THEN f.node_key IS NOT NULL END       AS in_workflow,
    CASE WHEN h.agent_id IS NOT NULL AND o.node_key IS NOT NULL THEN coalesce(f.is_start, false) END AS is_start
  FROM last_node_outcomes o
  LEFT JOIN has_flow h ON h.agent_id = o.agent_id
  LEFT JOIN flow_nodes f ON f.agent_id = o.agent_id AND f.node_key = o.node_key
  WHERE o.outcome = 'hung_up'
),
agent_hang_ups AS (
  SELECT agent_id, sum(hang_ups) AS total FROM hung_up GROUP BY agent_id
),
no_hang_ups AS (
  SELECT
    f.space,
    f.agent_id,
    f.agent_name,
    f.node_key,
    0                                          AS hang_ups,
    ratio(0, t.total)                          AS share,
    coalesce(v.conversations_visited, 0)       AS conversations_visited,
    ratio(0, v.conversations_visited)          AS exit_rate,
    true                                       AS in_workflow,
    f.is_start
  FROM flow_nodes f
  LEFT JOIN agent_hang_ups t ON t.agent_id = f.agent_id
  LEFT JOIN node_visitors v ON v.agent_id = f.agent_id AND v.node_key = f.node_key
  WHERE NOT EXISTS (SELECT 1 FROM hung_up u WHERE u.agent_id = f.agent_id AND u.node_key = f.node_key)
)
SELECT * FROM hung_up
UNION ALL
SELECT * FROM no_hang_ups
ORDER BY agent_id NULLS LAST, space, hang_ups DESC, node_key NULLS LAST
