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
-- Reads the shared relation last_node_outcomes (sql/shared/40_last_node_outcomes.sql).

SELECT
  agent_id,
  agent_name,
  node_key,
  conversations           AS hang_ups,
  share_of_outcome        AS share,
  conversations_visited,
  ended_here_rate         AS exit_rate
FROM last_node_outcomes
WHERE outcome = 'hung_up'
ORDER BY agent_id NULLS LAST, hang_ups DESC, node_key NULLS LAST
