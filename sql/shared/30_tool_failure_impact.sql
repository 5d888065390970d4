-- tool_failure_impact: calls and failures per tool and per connection, and how conversations with a failure ended
--
-- One row: one tool (per = 'tool': space and slug) or one connection (per = 'connection': space
-- and connection_id) with at least one filtered call. A call goes through the connection of its
-- tool (tools.connection_id): an empty connection_id on a connection row gathers the calls of
-- tools not in the tools table. A failure is a call whose status is anything other than `ok`;
-- a conversation is affected when at least one of its calls of the tool (or through the
-- connection) failed.
--
-- Columns:
--   per                                'tool' or 'connection': what the row counts
--   space                              space of the calls
--   slug                               tool's machine name (tool rows; empty on connection rows)
--   connection_id                      connection (connection rows; empty on tool rows)
--   tool_name                          tool's display name (tool rows; empty if the tool is not in
--                                      the tools table)
--   calls                              calls
--   failures                           calls with a status other than ok
--   failure_rate                       failures ÷ calls
--   failures_by_status                 failures per status, most frequent first, as `status:count; ...`
--                                      (a missing status shows as `null`)
--   conversations_calling              conversations with at least one of the calls
--   conversations_affected             conversations with at least one failed call
--   completion_rate_with_failure       completed ÷ ended, over the affected conversations
--   completion_rate_without_failure    completed ÷ ended, over calling conversations not affected
--   transfer_rate_with_failure         transferred ÷ ended, affected conversations
--   transfer_rate_without_failure      transferred ÷ ended, calling conversations not affected
--   hang_up_rate_with_failure          hung_up ÷ ended, affected conversations
--   hang_up_rate_without_failure       hung_up ÷ ended, calling conversations not affected
--
-- Materialized: table (tool_failures and connection_health both read it: built once per run that needs it)

WITH calls AS (
  -- each filtered call twice: once for its tool, once for its connection
  SELECT per.per, t.space,
         CASE WHEN per.per = 'tool' THEN t.slug END AS slug,
         CASE WHEN per.per = 'connection' THEN tl.connection_id END AS connection_id,
         CASE WHEN per.per = 'tool' THEN t.tool_name END AS tool_name,
         t.conversation_key, t.status, t.failed, t.outcome, t.conversation_calls
  FROM filtered_tool_calls t
  LEFT JOIN tools tl ON tl.id = t.tool_id
  CROSS JOIN (VALUES ('tool'), ('connection')) per(per)
),
per_conversation AS (
  -- the call of a conversation that made one is a group of its own: only the others are grouped
  SELECT per, space, slug, connection_id, outcome, failed AS had_failure
  FROM calls
  WHERE conversation_calls = 1
  UNION ALL
  SELECT per, space, slug, connection_id, any_value(outcome), bool_or(failed)
  FROM calls
  WHERE conversation_calls IS DISTINCT FROM 1
  GROUP BY per, space, slug, connection_id, conversation_key
),
outcome_mix AS (
  SELECT
    per,
    space,
    slug,
    connection_id,
    count(*)                                                                        AS conversations_calling,
    count(*) FILTER (WHERE had_failure)                                             AS conversations_affected,
    ratio(count(*) FILTER (WHERE had_failure AND outcome = 'completed'),
          count(*) FILTER (WHERE had_failure AND outcome IS NOT NULL))              AS completion_rate_with_failure,
    ratio(count(*) FILTER (WHERE NOT had_failure AND outcome = 'completed'),
          count(*) FILTER (WHERE NOT had_failure AND outcome IS NOT NULL))          AS completion_rate_without_failure,
    ratio(count(*) FILTER (WHERE had_failure AND outcome = 'transferred'),
          count(*) FILTER (WHERE had_failure AND outcome IS NOT NULL))              AS transfer_rate_with_failure,
    ratio(count(*) FILTER (WHERE NOT had_failure AND outcome = 'transferred'),
          count(*) FILTER (WHERE NOT had_failure AND outcome IS NOT NULL))          AS transfer_rate_without_failure,
    ratio(count(*) FILTER (WHERE had_failure AND outcome = 'hung_up'),
          count(*) FILTER (WHERE had_failure AND outcome IS NOT NULL))              AS hang_up_rate_with_failure,
    ratio(count(*) FILTER (WHERE NOT had_failure AND outcome = 'hung_up'),
          count(*) FILTER (WHERE NOT had_failure AND outcome IS NOT NULL))          AS hang_up_rate_without_failure
  FROM per_conversation
  GROUP BY per, space, slug, connection_id
),
by_status AS (
  SELECT per, space, slug, connection_id,
         string_agg(coalesce(status, 'null') || ':' || n, '; ' ORDER BY n DESC, status) AS failures_by_status
  FROM (
    SELECT per, space, slug, connection_id, status, count(*) AS n
    FROM calls
    WHERE failed
    GROUP BY per, space, slug, connection_id, status
  )
  GROUP BY per, space, slug, connection_id
),
totals AS (
  SELECT
    per,
    space,
    slug,
    connection_id,
    any_value(tool_name)                 AS tool_name,
    count(*)                             AS calls,
    count(*) FILTER (WHERE failed)       AS failures
  FROM calls
  GROUP BY per, space, slug, connection_id
)
SELECT
  t.per,
  t.space,
  t.slug,
  t.connection_id,
  t.tool_name,
  t.calls,
  t.failures,
  ratio(t.failures, t.calls) AS failure_rate,
  s.failures_by_status,
  m.conversations_calling,
  m.conversations_affected,
  m.completion_rate_with_failure,
  m.completion_rate_without_failure,
  m.transfer_rate_with_failure,
  m.transfer_rate_without_failure,
  m.hang_up_rate_with_failure,
  m.hang_up_rate_without_failure
FROM totals t
LEFT JOIN by_status s
  ON s.per = t.per AND s.space IS NOT DISTINCT FROM t.space
 AND s.slug IS NOT DISTINCT FROM t.slug AND s.connection_id IS NOT DISTINCT FROM t.connection_id
LEFT JOIN outcome_mix m
  ON m.per = t.per AND m.space IS NOT DISTINCT FROM t.space
 AND m.slug IS NOT DISTINCT FROM t.slug AND m.connection_id IS NOT DISTINCT FROM t.connection_id
