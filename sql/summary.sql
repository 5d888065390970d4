-- Title: Summary: the headline figures of the selected conversations, in one row
--
-- One row: always exactly one, the conversations that pass the filters taken together (zeros and
-- empty rates when none does). The tiles of `report --html` show these figures, and compare them with
-- the same report run over the period of the same length just before --since.
--
-- Columns:
--   conversations         conversations started in the period (ended or not)
--   ended                 conversations with an outcome
--   completed             outcome completed
--   transferred           outcome transferred (handed to a human)
--   hung_up               outcome hung_up
--   failed                outcome failed
--   in_progress           no outcome yet; not part of any rate
--   completion_rate       completed ÷ ended: contained, handled without a human
--   transfer_rate         transferred ÷ ended
--   hang_up_rate          hung_up ÷ ended
--   median_duration_sec   median duration_sec of the ended conversations
--   tool_calls            tool calls made in these conversations
--   tool_failures         tool calls with a status other than ok
--   tool_failure_rate     tool_failures ÷ tool_calls
--   first_started_at      earliest start among the conversations (UTC)
--   last_started_at       latest start among the conversations (UTC)
--   space                 the spaces of the selected conversations (comma-separated, by name);
--                         with none selected, the space of the latest sync run
--   last_sync_ended_at    when the latest finished sync run ended (UTC; whatever the filters)
--   last_sync_status      that run's status: ok, errors, failed or interrupted
--
-- Parameters: --since, --until, --agent, --channel (filters).

WITH last_sync AS (
  SELECT ended_at, status
  FROM sync_runs
  WHERE status <> 'running' AND ended_at IS NOT NULL
  ORDER BY ended_at DESC, run_id DESC
  LIMIT 1
)
SELECT
  count(*)                                                                 AS conversations,
  count(*) FILTER (WHERE ended)                                            AS ended,
  count(*) FILTER (WHERE outcome = 'completed')                            AS completed,
  count(*) FILTER (WHERE outcome = 'transferred')                          AS transferred,
  count(*) FILTER (WHERE outcome = 'hung_up')                              AS hung_up,
  count(*) FILTER (WHERE outcome = 'failed')                               AS failed,
  count(*) FILTER (WHERE NOT ended)                                        AS in_progress,
  ratio(count(*) FILTER (WHERE outcome = 'completed'), count(*) FILTER (WHERE ended))   AS completion_rate,
  ratio(count(*) FILTER (WHERE outcome = 'transferred'), count(*) FILTER (WHERE ended)) AS transfer_rate,
  ratio(count(*) FILTER (WHERE outcome = 'hung_up'), count(*) FILTER (WHERE ended))     AS hang_up_rate,
  median(duration_sec) FILTER (WHERE ended)                                AS median_duration_sec,
  coalesce(sum(tool_calls), 0)::BIGINT                                     AS tool_calls,
  coalesce(sum(failed_tool_calls), 0)::BIGINT                              AS tool_failures,
  ratio(sum(failed_tool_calls), sum(tool_calls))                           AS tool_failure_rate,
  min(started_at)                                                          AS first_started_at,
  max(started_at)                                                          AS last_started_at,
  coalesce(string_agg(DISTINCT space, ', ' ORDER BY space),
           (SELECT space FROM sync_runs WHERE space IS NOT NULL ORDER BY started_at DESC, run_id DESC LIMIT 1)) AS space,
  (SELECT ended_at FROM last_sync)                                         AS last_sync_ended_at,
  (SELECT status FROM last_sync)                                           AS last_sync_status
FROM filtered_conversations
