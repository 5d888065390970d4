-- Title: Agent leaderboard: every rate per agent, with a small-sample flag
--
-- One row: one agent that had conversations. Agents with enough conversations come first, by
-- completion rate, highest first.
--
-- Columns:
--   space                   space of the agent
--   agent_id                agent
--   agent_name              agent's name
--   conversations           conversations (ended or not)
--   ended                   conversations with an outcome
--   in_progress             conversations without an outcome yet
--   completion_rate         completed ÷ ended (containment)
--   transfer_rate           transferred ÷ ended
--   hang_up_rate            hung_up ÷ ended
--   failure_rate            outcome failed ÷ ended
--   early_hangup_rate       early voice hang-ups (hung_up within --early-seconds or with at most 2
--                           messages) ÷ ended voice conversations
--   median_duration_sec     median duration_sec of ended conversations
--   avg_message_count       mean message_count of ended conversations
--   tool_calls              tool calls made
--   tool_failures           tool calls with a status other than ok
--   tool_failure_rate       tool_failures ÷ tool_calls
--   small_sample            true when conversations < --min-sample: read the rates with care
--
-- Parameters: --since, --until, --agent, --channel (filters); --early-seconds (default 10);
-- --min-sample (default 20).

SELECT
  space,
  agent_id,
  any_value(agent_name)                                                          AS agent_name,
  count(*)                                                                       AS conversations,
  count(*) FILTER (WHERE ended)                                                  AS ended,
  count(*) FILTER (WHERE NOT ended)                                              AS in_progress,
  ratio(count(*) FILTER (WHERE outcome = 'completed'), count(*) FILTER (WHERE ended))   AS completion_rate,
  ratio(count(*) FILTER (WHERE outcome = 'transferred'), count(*) FILTER (WHERE ended)) AS transfer_rate,
  ratio(count(*) FILTER (WHERE outcome = 'hung_up'), count(*) FILTER (WHERE ended))     AS hang_up_rate,
  ratio(count(*) FILTER (WHERE outcome = 'failed'), count(*) FILTER (WHERE ended))      AS failure_rate,
  ratio(
    count(*) FILTER (WHERE channel = 'voice' AND outcome = 'hung_up'
                       AND (duration_sec <= $early_seconds OR message_count <= 2)),
    count(*) FILTER (WHERE channel = 'voice' AND ended))                         AS early_hangup_rate,
  median(duration_sec) FILTER (WHERE ended)                                      AS median_duration_sec,
  avg(message_count) FILTER (WHERE ended)                                        AS avg_message_count,
  sum(tool_calls)::BIGINT                                                        AS tool_calls,
  sum(failed_tool_calls)::BIGINT                                                 AS tool_failures,
  ratio(sum(failed_tool_calls), sum(tool_calls))                                 AS tool_failure_rate,
  count(*) < $min_sample                                                         AS small_sample
FROM filtered_conversations
GROUP BY space, agent_id
ORDER BY small_sample, completion_rate DESC NULLS LAST, agent_id NULLS LAST, space
