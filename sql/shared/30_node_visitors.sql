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

-- each conversation carries the nodes it entered and how often (conversation_figures.node_entries,
-- worked out as its visits are stored): no visit is read
SELECT v.space, v.agent_id, a.name AS agent_name, v.* EXCLUDE (space, agent_id)
FROM (
  SELECT
    space,
    agent_id,
    e.node_key,
    count(*)                                                                  AS conversations_visited,
    sum(e.entries)::BIGINT                                                    AS visits,
    count(*) FILTER (WHERE last_node IS NOT DISTINCT FROM e.node_key)        AS ended_here,
    count(*) FILTER (WHERE outcome = 'completed')                            AS completed,
    count(*) FILTER (WHERE outcome = 'transferred')                          AS transferred,
    count(*) FILTER (WHERE outcome = 'hung_up')                              AS hung_up,
    count(*) FILTER (WHERE outcome = 'failed')                               AS failed,
    count(*) FILTER (WHERE outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
    count(*) FILTER (WHERE outcome IS NULL)                                  AS in_progress
  FROM (SELECT space, agent_id, last_node, outcome, unnest(node_entries) AS e FROM filtered_conversations)
  GROUP BY space, agent_id, e.node_key
) v
-- the names are joined to the groups, not to each of the million conversations
LEFT JOIN agents a ON a.id = v.agent_id
