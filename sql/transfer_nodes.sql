-- Title: Where transfers happen: the last node of transferred conversations
--
-- One row: one agent × node that was the last node of at least one transferred conversation.
-- A conversation's last node is the node_key of its latest node_path entry. Transferred
-- conversations whose node path is unknown (no detail stored yet) are one row with an empty
-- node_key, so the shares add up to 1 per agent.
--
-- Columns:
--   agent_id               agent
--   agent_name             agent's name
--   node_key               last node of the transferred conversations
--   transfers              transferred conversations that ended in this node
--   share                  transfers ÷ all transfers of the agent
--   conversations_visited  conversations of the agent (any outcome) that visited this node
--   visit_transfer_rate    transfers ÷ conversations_visited: how often a visit ends in a transfer here
--
-- Parameters: --from, --to, --agent, --channel (filters).

WITH transfers AS (
  SELECT agent_id, last_node AS node_key, count(*) AS transfers
  FROM filtered_conversations
  WHERE outcome = 'transferred'
  GROUP BY agent_id, last_node
),
visited AS (
  SELECT agent_id, node_key, count(DISTINCT conversation_id) AS conversations_visited
  FROM filtered_node_visits
  GROUP BY agent_id, node_key
)
SELECT
  t.agent_id,
  a.name                                                           AS agent_name,
  t.node_key,
  t.transfers,
  ratio(t.transfers, sum(t.transfers) OVER (PARTITION BY t.agent_id)) AS share,
  v.conversations_visited,
  ratio(t.transfers, v.conversations_visited)                      AS visit_transfer_rate
FROM transfers t
LEFT JOIN visited v ON v.agent_id IS NOT DISTINCT FROM t.agent_id AND v.node_key = t.node_key
LEFT JOIN agents a ON a.id = t.agent_id
ORDER BY t.agent_id NULLS LAST, t.transfers DESC, t.node_key NULLS LAST
