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

WITH reached AS (
  SELECT
    agent_id,
    node_key,
    conversation_id,
    count(*) AS visits,
    any_value(outcome) AS outcome,
    any_value(last_node) AS last_node
  FROM filtered_node_visits
  GROUP BY agent_id, node_key, conversation_id
),
with_path AS (
  SELECT agent_id, count(*) AS conversations_with_path
  FROM filtered_conversations
  WHERE node_visits > 0
  GROUP BY agent_id
)
SELECT
  r.agent_id,
  a.name                                                            AS agent_name,
  r.node_key,
  count(*)                                                          AS conversations_reached,
  ratio(count(*), any_value(p.conversations_with_path))            AS reach_rate,
  sum(r.visits)::BIGINT                                             AS visits,
  count(*) FILTER (WHERE r.last_node IS NOT DISTINCT FROM r.node_key) AS ended_here,
  count(*) FILTER (WHERE r.outcome = 'completed')                   AS completed,
  count(*) FILTER (WHERE r.outcome = 'transferred')                 AS transferred,
  count(*) FILTER (WHERE r.outcome = 'hung_up')                     AS hung_up,
  count(*) FILTER (WHERE r.outcome = 'failed')                      AS failed,
  count(*) FILTER (WHERE r.outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
  count(*) FILTER (WHERE r.outcome IS NULL)                         AS in_progress
FROM reached r
LEFT JOIN with_path p ON p.agent_id IS NOT DISTINCT FROM r.agent_id
LEFT JOIN agents a ON a.id = r.agent_id
GROUP BY r.agent_id, a.name, r.node_key
ORDER BY r.agent_id NULLS LAST, conversations_reached DESC, r.node_key NULLS LAST
