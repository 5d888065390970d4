-- Title: Early hang-ups on voice, per agent and last node
--
-- One row: one agent × last node with at least one early hang-up. An early hang-up is a voice
-- conversation with outcome hung_up that lasted at most --early-seconds (duration_sec) or had at
-- most 2 messages. An empty node_key means the node path is unknown (no detail stored yet).
--
-- Columns:
--   space                  space of the agent
--   agent_id               agent
--   agent_name             agent's name
--   node_key               last node of the early hang-ups
--   early_hangups          early hang-ups that ended in this node
--   share                  early_hangups ÷ all early hang-ups of the agent
--   voice_ended            ended voice conversations of the agent
--   early_hangup_rate      early_hangups ÷ voice_ended
--   avg_duration_sec       mean duration_sec of these early hang-ups
--   avg_message_count      mean message_count of these early hang-ups
--
-- Parameters: --since, --until, --agent, --channel (filters); --early-seconds (default 10).

WITH early AS (
  SELECT space, agent_id, last_node AS node_key,
         count(*) AS early_hangups,
         avg(duration_sec) AS avg_duration_sec,
         avg(message_count) AS avg_message_count
  FROM filtered_conversations
  WHERE channel = 'voice'
    AND outcome = 'hung_up'
    AND (duration_sec <= $early_seconds OR message_count <= 2)
  GROUP BY space, agent_id, last_node
),
voice AS (
  SELECT space, agent_id, count(*) AS voice_ended
  FROM filtered_conversations
  WHERE channel = 'voice' AND ended
  GROUP BY space, agent_id
)
SELECT
  e.space,
  e.agent_id,
  a.name                                                                AS agent_name,
  e.node_key,
  e.early_hangups,
  ratio(e.early_hangups, sum(e.early_hangups) OVER (PARTITION BY e.space, e.agent_id)) AS share,
  v.voice_ended,
  ratio(e.early_hangups, v.voice_ended)                                 AS early_hangup_rate,
  e.avg_duration_sec,
  e.avg_message_count
FROM early e
LEFT JOIN voice v ON v.space IS NOT DISTINCT FROM e.space AND v.agent_id IS NOT DISTINCT FROM e.agent_id
LEFT JOIN agents a ON a.id = e.agent_id
ORDER BY e.agent_id NULLS LAST, e.space, e.early_hangups DESC, e.node_key NULLS LAST
