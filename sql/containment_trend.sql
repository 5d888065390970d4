-- Title: Weekly containment and transfer rate per agent, with the change from the week before
--
-- One row: one week (Monday to Sunday, in --tz) × agent that had conversations that week.
--
-- Columns:
--   week                        Monday the week starts, in --tz
--   space                       space of the agent
--   agent_id                    agent
--   agent_name                  agent's name
--   conversations               conversations started that week (ended or not)
--   ended                       conversations with an outcome
--   completed                   outcome completed
--   transferred                 outcome transferred
--   containment_rate            completed ÷ ended: handled without a human
--   transfer_rate               transferred ÷ ended
--   prev_conversations          conversations of the same agent the calendar week before (empty if none,
--                               e.g. before --since)
--   prev_containment_rate       containment_rate of the week before
--   prev_transfer_rate          transfer_rate of the week before
--   containment_rate_change     containment_rate − prev_containment_rate
--   transfer_rate_change        transfer_rate − prev_transfer_rate
--
-- Parameters: --since, --until, --agent, --channel (filters); --tz (week boundaries).

WITH weekly AS (
  SELECT
    date_trunc('week', started_local)::DATE           AS week,
    space,
    agent_id,
    any_value(agent_name)                             AS agent_name,
    count(*)                                          AS conversations,
    count(*) FILTER (WHERE ended)                     AS ended,
    count(*) FILTER (WHERE outcome = 'completed')     AS completed,
    count(*) FILTER (WHERE outcome = 'transferred')   AS transferred
  FROM filtered_conversations
  WHERE started_local IS NOT NULL
  GROUP BY week, space, agent_id
),
rated AS (
  SELECT *, ratio(completed, ended) AS containment_rate, ratio(transferred, ended) AS transfer_rate
  FROM weekly
)
SELECT
  cur.week,
  cur.space,
  cur.agent_id,
  cur.agent_name,
  cur.conversations,
  cur.ended,
  cur.completed,
  cur.transferred,
  cur.containment_rate,
  cur.transfer_rate,
  prev.conversations                              AS prev_conversations,
  prev.containment_rate                           AS prev_containment_rate,
  prev.transfer_rate                              AS prev_transfer_rate,
  cur.containment_rate - prev.containment_rate    AS containment_rate_change,
  cur.transfer_rate - prev.transfer_rate          AS transfer_rate_change
FROM rated cur
LEFT JOIN rated prev
  ON prev.space IS NOT DISTINCT FROM cur.space
 AND prev.agent_id IS NOT DISTINCT FROM cur.agent_id
 AND prev.week = cur.week - INTERVAL 7 DAY
ORDER BY cur.week, cur.agent_id NULLS LAST, cur.space
