-- Title: Connection health: calls and failures per customer endpoint, beside its credentials
--
-- One row: one connection (every one in the connections table, also those no call went
-- through), plus one per space with an empty connection_id for calls of tools whose connection is unknown
-- (the tool is not in the tools table). A call goes through the connection of its tool
-- (tools.connection_id); a failure is a call whose status is anything other than `ok`. Failing
-- calls next to auth_status `missing` or `error` point at the credentials first.
--
-- Columns:
--   space                              space of the connection (of the calls, on the row of unknown connections)
--   connection_id                      connection
--   connection_name                    its name
--   kind                               custom, connector or module
--   base_url                           the endpoint its tools call
--   auth_status                        configured, missing or error: whether credentials are stored
--   tools                              tools in the tools table that call through it
--   calls                              calls of those tools
--   failures                           calls with a status other than ok
--   failure_rate                       failures ÷ calls
--   failures_by_status                 failures per status, most frequent first, as `status:count; ...`
--                                      (a missing status shows as `null`)
--   conversations_calling              conversations with at least one call through it
--   conversations_affected             conversations with at least one failed call through it
--   completion_rate_with_failure       completed ÷ ended, over the affected conversations
--   completion_rate_without_failure    completed ÷ ended, over conversations that called through it
--                                      without a failure there
--   transfer_rate_with_failure         transferred ÷ ended, affected conversations
--   transfer_rate_without_failure      transferred ÷ ended, calling conversations without a failure there
--   hang_up_rate_with_failure          hung_up ÷ ended, affected conversations
--   hang_up_rate_without_failure       hung_up ÷ ended, calling conversations without a failure there
--
-- Parameters: --from, --to, --agent, --channel (filters: they select the calls; every connection
-- is listed whatever they select).

WITH calls AS (
  SELECT t.space, t.conversation_id, t.status, t.failed, t.outcome, tl.connection_id
  FROM filtered_tool_calls t
  LEFT JOIN tools tl ON tl.id = t.tool_id
),
per_conversation AS (
  SELECT space, connection_id, conversation_id, any_value(outcome) AS outcome, bool_or(failed) AS had_failure
  FROM calls
  GROUP BY space, connection_id, conversation_id
),
outcome_mix AS (
  SELECT
    space,
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
  GROUP BY space, connection_id
),
by_status AS (
  SELECT space, connection_id, string_agg(coalesce(status, 'null') || ':' || n, '; ' ORDER BY n DESC, status) AS failures_by_status
  FROM (SELECT space, connection_id, status, count(*) AS n FROM calls WHERE failed GROUP BY space, connection_id, status)
  GROUP BY space, connection_id
),
totals AS (
  SELECT space, connection_id, count(*) AS calls, count(*) FILTER (WHERE failed) AS failures
  FROM calls
  GROUP BY space, connection_id
),
tool_counts AS (
  SELECT connection_id, count(*) AS tools FROM tools GROUP BY connection_id
),
listed AS (
  -- every connection, and the calls of tools whose connection is not in the connections table
  SELECT space, id AS connection_id, name, kind, base_url, auth_status FROM connections
  UNION ALL
  SELECT DISTINCT space, connection_id, NULL, NULL, NULL, NULL FROM totals
  WHERE connection_id IS NULL OR connection_id NOT IN (SELECT id FROM connections)
)
SELECT
  r.space,
  r.connection_id,
  r.name                                   AS connection_name,
  r.kind,
  r.base_url,
  r.auth_status,
  coalesce(tc.tools, 0)                    AS tools,
  coalesce(t.calls, 0)                     AS calls,
  coalesce(t.failures, 0)                  AS failures,
  ratio(t.failures, t.calls)               AS failure_rate,
  s.failures_by_status,
  coalesce(m.conversations_calling, 0)     AS conversations_calling,
  coalesce(m.conversations_affected, 0)    AS conversations_affected,
  m.completion_rate_with_failure,
  m.completion_rate_without_failure,
  m.transfer_rate_with_failure,
  m.transfer_rate_without_failure,
  m.hang_up_rate_with_failure,
  m.hang_up_rate_without_failure
FROM listed r
LEFT JOIN tool_counts tc ON tc.connection_id IS NOT DISTINCT FROM r.connection_id AND r.connection_id IS NOT NULL
LEFT JOIN totals t ON t.space IS NOT DISTINCT FROM r.space AND t.connection_id IS NOT DISTINCT FROM r.connection_id
LEFT JOIN by_status s ON s.space IS NOT DISTINCT FROM r.space AND s.connection_id IS NOT DISTINCT FROM r.connection_id
LEFT JOIN outcome_mix m ON m.space IS NOT DISTINCT FROM r.space AND m.connection_id IS NOT DISTINCT FROM r.connection_id
ORDER BY failures DESC, connection_name NULLS LAST, connection_id NULLS LAST, r.space
