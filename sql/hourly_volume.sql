-- Title: Conversations by day of week and hour, in --tz
--
-- One row: one day of week × hour: always 7 × 24 = 168 rows, zero where nothing happened.
--
-- Columns:
--   day_of_week      ISO day number: 1 = Monday … 7 = Sunday, in --tz
--   day_name         Monday … Sunday
--   hour             hour of the day 0..23, in --tz
--   conversations    conversations started in that hour of that weekday (ended or not)
--   ended            conversations with an outcome
--   transferred      outcome transferred
--   transfer_rate    transferred ÷ ended (empty when nothing ended)
--   hung_up          outcome hung_up
--   hang_up_rate     hung_up ÷ ended
--
-- Parameters: --since, --until, --agent, --channel (filters); --tz (weekday and hour).

WITH slots AS (
  SELECT d AS day_of_week, h AS hour
  FROM range(1, 8) AS days(d), range(0, 24) AS hours(h)
),
counts AS (
  SELECT
    isodow(started_local)                             AS day_of_week,
    hour(started_local)                               AS hour,
    count(*)                                          AS conversations,
    count(*) FILTER (WHERE ended)                     AS ended,
    count(*) FILTER (WHERE outcome = 'transferred')   AS transferred,
    count(*) FILTER (WHERE outcome = 'hung_up')       AS hung_up
  FROM filtered_conversations
  WHERE started_local IS NOT NULL
  GROUP BY ALL
)
SELECT
  s.day_of_week::INTEGER                                                   AS day_of_week,
  ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'][s.day_of_week] AS day_name,
  s.hour::INTEGER                                                          AS hour,
  coalesce(c.conversations, 0)                                             AS conversations,
  coalesce(c.ended, 0)                                                     AS ended,
  coalesce(c.transferred, 0)                                               AS transferred,
  ratio(c.transferred, c.ended)                                            AS transfer_rate,
  coalesce(c.hung_up, 0)                                                   AS hung_up,
  ratio(c.hung_up, c.ended)                                                AS hang_up_rate
FROM slots s
LEFT JOIN counts c ON c.day_of_week = s.day_of_week AND c.hour = s.hour
ORDER BY s.day_of_week, s.hour
