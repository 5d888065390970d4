-- Title: Outcomes by day, agent and channel
--
-- One row: one day (in --tz) × agent × channel that had conversations.
--
-- Columns:
--   day                  day the conversations started, in --tz
--   space                space of the agent
--   agent_id             agent
--   agent_name           agent's name (empty if the agent is not in the agents table)
--   channel              voice or chat
--   conversations        conversations started that day (ended or not)
--   ended                conversations with an outcome
--   completed            outcome completed
--   transferred          outcome transferred (handed to a human)
--   hung_up              outcome hung_up
--   failed               outcome failed
--   other                an outcome the API spec does not list (kept verbatim in conversations.outcome)
--   in_progress          no outcome yet (still running when last fetched); not part of any rate
--   completion_rate      completed ÷ ended (0..1)
--   transfer_rate        transferred ÷ ended
--   hang_up_rate         hung_up ÷ ended
--   avg_duration_sec     mean duration_sec of the ended conversations
--   median_duration_sec  median duration_sec of the ended conversations
--
-- Parameters: --since, --until, --agent, --channel (filters); --tz (day boundaries).

SELECT
  started_local::DATE                                                      AS day,
  space,
  agent_id,
  any_value(agent_name)                                                    AS agent_name,
  channel,
  count(*)                                                                 AS conversations,
  count(*) FILTER (WHERE ended)                                            AS ended,
  count(*) FILTER (WHERE outcome = 'completed')                            AS completed,
  count(*) FILTER (WHERE outcome = 'transferred')                          AS transferred,
  count(*) FILTER (WHERE outcome = 'hung_up')                              AS hung_up,
  count(*) FILTER (WHERE outcome = 'failed')                               AS failed,
  count(*) FILTER (WHERE outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other,
  count(*) FILTER (WHERE NOT ended)                                        AS in_progress,
  ratio(count(*) FILTER (WHERE outcome = 'completed'), count(*) FILTER (WHERE ended))   AS completion_rate,
  ratio(count(*) FILTER (WHERE outcome = 'transferred'), count(*) FILTER (WHERE ended)) AS transfer_rate,
  ratio(count(*) FILTER (WHERE outcome = 'hung_up'), count(*) FILTER (WHERE ended))     AS hang_up_rate,
  avg(duration_sec) FILTER (WHERE ended)                                   AS avg_duration_sec,
  median(duration_sec) FILTER (WHERE ended)                                AS median_duration_sec
FROM filtered_conversations
GROUP BY day, space, agent_id, channel
ORDER BY day NULLS LAST, agent_id NULLS LAST, space, channel NULLS LAST
