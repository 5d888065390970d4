-- Title: Transfers to a human per agent
--
-- One row: one agent that had conversations.
--
-- Columns:
--   space                         space of the agent
--   agent_id                      agent
--   agent_name                    agent's name
--   conversations                 conversations (ended or not)
--   ended                         conversations with an outcome
--   transferred                   outcome transferred
--   transfer_rate                 transferred ÷ ended (0..1)
--   median_seconds_to_transfer    median, over transferred conversations, of the seconds from started_at
--                                 to the moment the conversation entered its last node (the node it was
--                                 transferred from); ended_at when the node path is unknown
--   avg_seconds_to_transfer       mean of the same
--
-- Parameters: --since, --until, --agent, --channel (filters).

SELECT
  space,
  agent_id,
  any_value(agent_name)                                    AS agent_name,
  count(*)                                                 AS conversations,
  count(*) FILTER (WHERE ended)                            AS ended,
  count(*) FILTER (WHERE outcome = 'transferred')          AS transferred,
  ratio(count(*) FILTER (WHERE outcome = 'transferred'), count(*) FILTER (WHERE ended)) AS transfer_rate,
  median(epoch(coalesce(last_node_at, ended_at)) - epoch(started_at))
    FILTER (WHERE outcome = 'transferred')                 AS median_seconds_to_transfer,
  avg(epoch(coalesce(last_node_at, ended_at)) - epoch(started_at))
    FILTER (WHERE outcome = 'transferred')                 AS avg_seconds_to_transfer
FROM filtered_conversations
GROUP BY space, agent_id
ORDER BY agent_id NULLS LAST, space
