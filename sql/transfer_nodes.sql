-- Title: Where transfers happen: the last node of transferred conversations
--
-- One row: one agent × node that was the last node of at least one transferred conversation.
-- A conversation's last node is the node_key of its latest node_path entry. Transferred
-- conversations whose node path is unknown (no detail stored yet) are one row with an empty
-- node_key, so the shares add up to 1 per agent.
--
-- Columns:
--   space                  space of the agent
--   agent_id               agent
--   agent_name             agent's name
--   node_key               last node of the transferred conversations
--   transfers              transferred conversations that ended in this node
--   share                  transfers ÷ all transfers of the agent
--   conversations_visited  conversations of the agent (any outcome) that visited this node
--   visit_transfer_rate    transfers ÷ conversations_visited: how often a visit ends in a transfer here
--
-- Parameters: --since, --until, --agent, --channel (filters).
-- Reads the shared relation last_node_outcomes (sql/shared/40_last_node_outcomes.sql).

SELECT
  space,
  agent_id,
  agent_name,
  node_key,
  conversations           AS transfers,
  share_of_outcome        AS share,
  conversations_visited,
  ended_here_rate         AS visit_transfer_rate
FROM last_node_outcomes
WHERE outcome = 'transferred'
ORDER BY agent_id NULLS LAST, space, transfers DESC, node_key NULLS LAST
