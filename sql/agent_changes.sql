-- Title: Agent changes: what changed in an agent, and how its conversations went before and after
--
-- One row: one new version of an agent that a sync saw (agent_versions: a Get agent response with
-- another updated_at, last_synced_at, status or sync_status than the version before). An agent's
-- first version stored has nothing to compare with and is in no row. The windows are the --change-days
-- × 24 hours before changed_at and the --change-days × 24 hours from it; a window that reaches past the
-- last sync, or into the next change, says so only through its counts.
--
-- Columns:
--   space                     space of the agent
--   agent_id                  agent
--   agent_name                agent's name
--   version                   the new version's number (agent_versions.version)
--   changed_at                the new version's updated_at (when it has none: first_seen_at)
--   first_seen_at             when a sync first saw the new version
--   status                    the agent's status in the new version
--   sync_status               its sync_status (`draft`: changed but not published, so
--                             conversations still use the version before)
--   changed_fields            top-level fields of the agent whose value differs from the version
--                             before, by name, `; `-separated (updated_at is left out; a timestamp
--                             written differently for the same instant is no change)
--   conversations_before      the agent's conversations that started in the window before
--   conversations_after       … in the window after
--   completion_rate_before    completed ÷ ended, window before
--   completion_rate_after     completed ÷ ended, window after
--   completion_rate_change    after − before
--   transfer_rate_before      transferred ÷ ended, window before
--   transfer_rate_after       transferred ÷ ended, window after
--   transfer_rate_change      after − before
--   hang_up_rate_before       hung_up ÷ ended, window before
--   hang_up_rate_after        hung_up ÷ ended, window after
--   hang_up_rate_change       after − before
--
-- Parameters: --change-days (window length, default 7); --since, --until select changes by changed_at;
-- --agent selects agents; --channel selects the conversations counted.

WITH ordered AS (
  SELECT v.*, lag(v.body) OVER (PARTITION BY v.agent_id ORDER BY v.version) AS previous_body
  FROM agent_versions v
),
changes AS (
  SELECT agent_id, version, coalesce(updated_at, first_seen_at) AS changed_at, first_seen_at, status,
         sync_status, body, previous_body
  FROM ordered
  -- (the parameters are cast: DuckDB types this report's columns before any value is bound only so)
  WHERE previous_body IS NOT NULL
    AND ($agents::VARCHAR[] IS NULL OR list_contains($agents::VARCHAR[], agent_id))
    AND ($from::TIMESTAMPTZ IS NULL OR coalesce(updated_at, first_seen_at) >= $from::TIMESTAMPTZ)
    AND ($to::TIMESTAMPTZ IS NULL OR coalesce(updated_at, first_seen_at) < $to::TIMESTAMPTZ)
),
new_fields AS (
  SELECT c.agent_id, c.version, f.key, f.value
  FROM changes c, json_each(json_extract(c.body, '$.data')) f
),
old_fields AS (
  SELECT c.agent_id, c.version, f.key, f.value
  FROM changes c, json_each(json_extract(c.previous_body, '$.data')) f
),
differing AS (
  SELECT coalesce(n.agent_id, o.agent_id) AS agent_id, coalesce(n.version, o.version) AS version,
         coalesce(n.key, o.key) AS key
  FROM new_fields n
  FULL OUTER JOIN old_fields o ON o.agent_id = n.agent_id AND o.version = n.version AND o.key = n.key
  WHERE coalesce(n.key, o.key) <> 'updated_at'
    AND NOT coalesce(
      try_cast((n.value->>'$') AS TIMESTAMPTZ) = try_cast((o.value->>'$') AS TIMESTAMPTZ),
      n.value IS NOT DISTINCT FROM o.value
    )
),
fields AS (
  SELECT agent_id, version, string_agg(key, '; ' ORDER BY key) AS changed_fields
  FROM differing
  GROUP BY agent_id, version
),
windows AS (
  SELECT
    c.agent_id,
    c.version,
    count(k.id) FILTER (WHERE k.started_at < c.changed_at)                                       AS conversations_before,
    count(k.id) FILTER (WHERE k.started_at >= c.changed_at)                                      AS conversations_after,
    count(k.id) FILTER (WHERE k.started_at < c.changed_at AND k.outcome IS NOT NULL)             AS ended_before,
    count(k.id) FILTER (WHERE k.started_at >= c.changed_at AND k.outcome IS NOT NULL)            AS ended_after,
    count(k.id) FILTER (WHERE k.started_at < c.changed_at AND k.outcome = 'completed')           AS completed_before,
    count(k.id) FILTER (WHERE k.started_at >= c.changed_at AND k.outcome = 'completed')          AS completed_after,
    count(k.id) FILTER (WHERE k.started_at < c.changed_at AND k.outcome = 'transferred')         AS transferred_before,
    count(k.id) FILTER (WHERE k.started_at >= c.changed_at AND k.outcome = 'transferred')        AS transferred_after,
    count(k.id) FILTER (WHERE k.started_at < c.changed_at AND k.outcome = 'hung_up')             AS hung_up_before,
    count(k.id) FILTER (WHERE k.started_at >= c.changed_at AND k.outcome = 'hung_up')            AS hung_up_after
  FROM changes c
  LEFT JOIN conversations k
    ON k.agent_id = c.agent_id
   AND k.started_at >= c.changed_at - to_hours(24 * $days::INTEGER)
   AND k.started_at < c.changed_at + to_hours(24 * $days::INTEGER)
   AND ($channel::VARCHAR IS NULL OR k.channel = $channel::VARCHAR)
  GROUP BY c.agent_id, c.version
),
rates AS (
  SELECT
    agent_id, version, conversations_before, conversations_after,
    ratio(completed_before, ended_before)     AS completion_rate_before,
    ratio(completed_after, ended_after)       AS completion_rate_after,
    ratio(transferred_before, ended_before)   AS transfer_rate_before,
    ratio(transferred_after, ended_after)     AS transfer_rate_after,
    ratio(hung_up_before, ended_before)       AS hang_up_rate_before,
    ratio(hung_up_after, ended_after)         AS hang_up_rate_after
  FROM windows
)
SELECT
  a.space,
  c.agent_id,
  a.name                                                   AS agent_name,
  c.version,
  c.changed_at,
  c.first_seen_at,
  c.status,
  c.sync_status,
  f.changed_fields,
  r.conversations_before,
  r.conversations_after,
  r.completion_rate_before,
  r.completion_rate_after,
  r.completion_rate_after - r.completion_rate_before       AS completion_rate_change,
  r.transfer_rate_before,
  r.transfer_rate_after,
  r.transfer_rate_after - r.transfer_rate_before           AS transfer_rate_change,
  r.hang_up_rate_before,
  r.hang_up_rate_after,
  r.hang_up_rate_after - r.hang_up_rate_before             AS hang_up_rate_change
FROM changes c
LEFT JOIN agents a ON a.id = c.agent_id
LEFT JOIN fields f ON f.agent_id = c.agent_id AND f.version = c.version
LEFT JOIN rates r ON r.agent_id = c.agent_id AND r.version = c.version
ORDER BY c.changed_at DESC, c.agent_id, c.version
