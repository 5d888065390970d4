-- Title: Where callers hang up: the last node of hung-up conversations
--
-- One row: one agent × node that was the last node of at least one hung_up conversation.
-- Hung-up conversations whose node path is unknown (no detail stored yet) are one row with an
-- empty node_key, so the shares add up to 1 per agent.
--
-- Columns:
--   agent_id               agent
--   agent_name             agent's name
--   node_key               last node of the hung-up conversations
--   hang_ups               hung_up conversations that ended in this node
--   share                  hang_ups ÷ all hang-ups of the agent
--   conversations_visited  conversations of the agent (any outcome) that visited this node
--   exit_rate              hang_ups ÷ conversations_visited: how often a visit ends in a hang-up here
--
-- Parameters: --from, --to, --agent, --channel (filters).

WITH hang_ups AS (
  SELECT agent_id, last_node AS node_key, count(*) AS hang_ups
  FROM filtered_conversations
  WHERE outcome = 'hung_up'
  GROUP BY agent_id, last_node
),
visited AS (
  SELECT agent_id, node_key, count(DISTINCT conversation_id) AS conversations_visited
  FROM filtered_node_visits
  GROUP BY agent_id, node_key
)
SELECT
  h.agent_id,
  a.name                                                          AS agent_name,
  h.node_key,
  h.hang_ups,
  ratio(h.hang_ups, sum(h.hang_ups) OVER (PARTITION BY h.agent_id)) AS share,
  v.conversations_visited,
  ratio(h.hang_ups, v.conversations_visited)                      AS exit_rate
FROM hang_ups h
LEFT JOIN visited v ON v.agent_id IS NOT DISTINCT FROM h.agent_id AND v.node_key = h.node_key
LEFT JOIN agents a ON a.id = h.agent_id
ORDER BY h.agent_id NULLS LAST, h.hang_ups DESC, h.node_key NULLS LAST
