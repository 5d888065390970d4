-- Title: Duration and length of ended conversations per agent and channel
--
-- One row: one agent × channel with at least one ended conversation (outcome known).
-- Percentiles interpolate linearly between the two nearest values (DuckDB's quantile_cont, as
-- numpy's default); the median is the 50th percentile.
--
-- Columns:
--   space               space of the agent
--   agent_id            agent
--   agent_name          agent's name
--   channel             voice or chat
--   conversations       ended conversations
--   mean_duration_sec   mean of duration_sec
--   p50_duration_sec    median of duration_sec
--   p90_duration_sec    90th percentile of duration_sec
--   p95_duration_sec    95th percentile of duration_sec
--   max_duration_sec    longest duration_sec
--   mean_message_count  mean of message_count
--   p50_message_count   median of message_count
--   p90_message_count   90th percentile of message_count
--
-- Parameters: --since, --until, --agent, --channel (filters).

SELECT
  space,
  agent_id,
  any_value(agent_name)                      AS agent_name,
  channel,
  count(*)                                   AS conversations,
  avg(duration_sec)                          AS mean_duration_sec,
  quantile_cont(duration_sec, 0.5)           AS p50_duration_sec,
  quantile_cont(duration_sec, 0.9)           AS p90_duration_sec,
  quantile_cont(duration_sec, 0.95)          AS p95_duration_sec,
  max(duration_sec)                          AS max_duration_sec,
  avg(message_count)                         AS mean_message_count,
  quantile_cont(message_count, 0.5)          AS p50_message_count,
  quantile_cont(message_count, 0.9)          AS p90_message_count
FROM filtered_conversations
WHERE ended
GROUP BY space, agent_id, channel
ORDER BY agent_id NULLS LAST, space, channel NULLS LAST
