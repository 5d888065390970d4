-- last_node_outcomes: where conversations end, per agent, last node and outcome
--
-- One row: one agent × last node × outcome of at least one filtered conversation. A
-- conversation's last node is the node_key of its latest node_path entry. Conversations whose
-- node path is unknown (detail not stored) are counted with an empty node_key, so
-- share_of_outcome adds up to 1 per agent and outcome. An empty outcome: still in progress.
--
-- Columns:
--   space                   space of the agent
--   agent_id                agent
--   agent_name              agent's name
--   node_key                last node
--   outcome                 outcome of the conversations
--   conversations           conversations of the agent with this outcome whose last node this is
--   share_of_outcome        conversations ÷ all conversations of the agent with this outcome
--   conversations_visited   conversations of the agent (any outcome) that visited this node
--                           (node_visitors; empty for an empty node_key)
--   ended_here_rate         conversations ÷ conversations_visited: how often a visit to the node
--                           ends there with this outcome

WITH ended_in AS (
  SELECT space, agent_id, last_node AS node_key, outcome, count(*) AS conversations
  FROM filtered_conversations
  GROUP BY space, agent_id, last_node, outcome
)
SELECT
  e.space,
  e.agent_id,
  a.name                                                                        AS agent_name,
  e.node_key,
  e.outcome,
  e.conversations,
  ratio(e.conversations, sum(e.conversations) OVER (PARTITION BY e.space, e.agent_id, e.outcome)) AS share_of_outcome,
  v.conversations_visited,
  ratio(e.conversations, v.conversations_visited)                               AS ended_here_rate
FROM ended_in e
LEFT JOIN node_visitors v
  ON v.space IS NOT DISTINCT FROM e.space AND v.agent_id IS NOT DISTINCT FROM e.agent_id AND v.node_key = e.node_key
LEFT JOIN agents a ON a.id = e.agent_id
