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
--
-- Materialized: table (node_funnel reads it twice, drop_off once: built once per run that needs it)

-- visits are counted per conversation and node before the conversation's figures are joined:
-- grouping by two columns, then joining one row per pair, is cheaper than the other way round
WITH per_conversation AS (
  SELECT conversation_id, node_key, count(*) AS visits
  FROM filtered_node_visits
  GROUP BY conversation_id, node_key
)
SELECT
  c.space,
  c.agent_id,
  a.name                                                              AS agent_name,
  v.node_key,
  count(*)                                                            AS conversations_visited,
  sum(v.visits)::BIGINT                                               AS visits,
  count(*) FILTER (WHERE c.last_node IS NOT DISTINCT FROM v.node_key) AS ended_here,
  count(*) FILTER (WHERE c.outcome = 'completed')                     AS completed,
  count(*) FILTER (WHERE c.outcome = 'transferred')                   AS transferred,
  count(*) FILTER (WHERE c.outcome = 'hung_up')                       AS hung_up,
  count(*) FILTER (WHERE c.outcome = 'failed')                        AS failed,
  count(*) FILTER (WHERE c.outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
  count(*) FILTER (WHERE c.outcome IS NULL)                           AS in_progress
FROM per_conversation v
JOIN filtered_conversations c ON c.id = v.conversation_id
LEFT JOIN agents a ON a.id = c.agent_id
GROUP BY c.space, c.agent_id, a.name, v.node_key
