-- node_visitors: per agent and node, the conversations that visited it and how they ended
--
-- One row: one agent × node that at least one filtered conversation visited. Conversations whose
-- node path is unknown (detail not stored) are in no row.
--
-- Columns:
--   space                   space of the agent
--   agent_id                agent
--   agent_name              agent's name
--   node_key                node
--   conversations_visited   conversations that visited the node at least once
--   visits                  visits in total (a conversation can come back to a node)
--   ended_here              visiting conversations whose last node is this one
--   completed               visiting conversations with outcome completed
--   transferred             … transferred
--   hung_up                 … hung_up
--   failed                  … failed
--   other                   … an outcome the API spec does not list
--   in_progress             … no outcome yet

WITH per_conversation AS (
  SELECT
    space,
    agent_id,
    node_key,
    conversation_id,
    count(*) AS visits,
    any_value(outcome) AS outcome,
    any_value(last_node) AS last_node
  FROM filtered_node_visits
  GROUP BY space, agent_id, node_key, conversation_id
)
SELECT
  v.space,
  v.agent_id,
  a.name                                                              AS agent_name,
  v.node_key,
  count(*)                                                            AS conversations_visited,
  sum(v.visits)::BIGINT                                               AS visits,
  count(*) FILTER (WHERE v.last_node IS NOT DISTINCT FROM v.node_key) AS ended_here,
  count(*) FILTER (WHERE v.outcome = 'completed')                     AS completed,
  count(*) FILTER (WHERE v.outcome = 'transferred')                   AS transferred,
  count(*) FILTER (WHERE v.outcome = 'hung_up')                       AS hung_up,
  count(*) FILTER (WHERE v.outcome = 'failed')                        AS failed,
  count(*) FILTER (WHERE v.outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
  count(*) FILTER (WHERE v.outcome IS NULL)                           AS in_progress
FROM per_conversation v
LEFT JOIN agents a ON a.id = v.agent_id
GROUP BY v.space, v.agent_id, a.name, v.node_key
