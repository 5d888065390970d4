-- Title: Repeat contacts: widget sessions that come back within 24 hours
--
-- One row: one agent with chat conversations that carry a session_ref (the web widget's session).
-- A conversation came back when another conversation of the same space and session_ref started
-- after it, within 24 hours of its start: a visitor who returned, often because the first
-- conversation did not solve it. The return is looked for among every stored conversation, so
-- one after --until, or taken by another agent, counts too.
--
-- Columns:
--   space                         space of the agent
--   agent_id                      agent of the first conversation
--   agent_name                    agent's name
--   chat_conversations            chat conversations with a session_ref
--   came_back                     of those, followed by a return within 24 hours
--   came_back_rate                came_back ÷ chat_conversations
--   came_back_to_same_agent       of those, with a return taken by the same agent
--   median_hours_to_return        median hours from the start to the first return's start
--   completed                     chat conversations with a session_ref that completed
--   came_back_after_completed     of those, came back
--   came_back_rate_completed      came_back_after_completed ÷ completed
--   not_completed                 ended another way (transferred, hung_up, failed, other)
--   came_back_after_not_completed of those, came back
--   came_back_rate_not_completed  came_back_after_not_completed ÷ not_completed
--
-- Parameters: --since, --until, --agent, --channel (filters).

WITH firsts AS (
  SELECT id, space, agent_id, session_ref, started_at, outcome
  FROM filtered_conversations
  WHERE channel = 'chat' AND session_ref IS NOT NULL
),
returns AS (
  SELECT f.id,
         min(r.started_at)                                   AS returned_at,
         bool_or(r.agent_id IS NOT DISTINCT FROM f.agent_id) AS same_agent
  FROM firsts f
  JOIN conversations r
    ON r.space = f.space AND r.session_ref = f.session_ref
   AND r.started_at > f.started_at AND r.started_at <= f.started_at + INTERVAL 24 HOUR
  GROUP BY f.id
),
joined AS (
  SELECT f.*, r.returned_at IS NOT NULL AS came_back, coalesce(r.same_agent, false) AS same_agent,
         (epoch_ms(r.returned_at) - epoch_ms(f.started_at)) / 3600000.0 AS hours_to_return
  FROM firsts f
  LEFT JOIN returns r ON r.id = f.id
)
SELECT j.space, j.agent_id, a.name AS agent_name,
       count(*)                                                                   AS chat_conversations,
       count(*) FILTER (WHERE came_back)                                          AS came_back,
       ratio(count(*) FILTER (WHERE came_back), count(*))                         AS came_back_rate,
       count(*) FILTER (WHERE came_back AND same_agent)                           AS came_back_to_same_agent,
       quantile_cont(hours_to_return, 0.5)                                        AS median_hours_to_return,
       count(*) FILTER (WHERE outcome = 'completed')                              AS completed,
       count(*) FILTER (WHERE outcome = 'completed' AND came_back)                AS came_back_after_completed,
       ratio(count(*) FILTER (WHERE outcome = 'completed' AND came_back),
             count(*) FILTER (WHERE outcome = 'completed'))                       AS came_back_rate_completed,
       count(*) FILTER (WHERE outcome <> 'completed')                             AS not_completed,
       count(*) FILTER (WHERE outcome <> 'completed' AND came_back)               AS came_back_after_not_completed,
       ratio(count(*) FILTER (WHERE outcome <> 'completed' AND came_back),
             count(*) FILTER (WHERE outcome <> 'completed'))                      AS came_back_rate_not_completed
FROM joined j
LEFT JOIN agents a ON a.id = j.agent_id
GROUP BY j.space, j.agent_id, a.name
ORDER BY j.agent_id NULLS LAST, j.space
