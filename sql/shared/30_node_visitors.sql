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

-- each visit carries its entry number (node_visits.entry_no): a conversation's first entry into a
-- node stands for the conversation, so no per-conversation grouping comes first
SELECT v.space, v.agent_id, a.name AS agent_name, v.* EXCLUDE (space, agent_id)
FROM (
  SELECT
    space,
    agent_id,
    node_key,
    count(*) FILTER (WHERE entry_no = 1)                                                AS conversations_visited,
    count(*)::BIGINT                                                                    AS visits,
    count(*) FILTER (WHERE entry_no = 1 AND last_node IS NOT DISTINCT FROM node_key)   AS ended_here,
    count(*) FILTER (WHERE entry_no = 1 AND outcome = 'completed')                     AS completed,
    count(*) FILTER (WHERE entry_no = 1 AND outcome = 'transferred')                   AS transferred,
    count(*) FILTER (WHERE entry_no = 1 AND outcome = 'hung_up')                       AS hung_up,
    count(*) FILTER (WHERE entry_no = 1 AND outcome = 'failed')                        AS failed,
    count(*) FILTER (WHERE entry_no = 1 AND outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
    count(*) FILTER (WHERE entry_no = 1 AND outcome IS NULL)                           AS in_progress
  FROM filtered_node_visits
  GROUP BY space, agent_id, node_key
) v
-- the names are joined to the groups, not to each of the millions of visits
LEFT JOIN agents a ON a.id = v.agent_id
