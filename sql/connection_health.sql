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
-- Parameters: --since, --until, --agent, --channel (filters: they select the calls; every connection
-- is listed whatever they select).

WITH called AS (
  SELECT * FROM tool_failure_impact WHERE per = 'connection'
),
tool_counts AS (
  SELECT connection_id, count(*) AS tools FROM tools GROUP BY connection_id
),
listed AS (
  -- every connection, and the calls of tools whose connection is not in the connections table
  SELECT space, id AS connection_id, name, kind, base_url, auth_status FROM connections
  UNION ALL
  SELECT DISTINCT space, connection_id, NULL, NULL, NULL, NULL FROM called
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
  coalesce(c.calls, 0)                     AS calls,
  coalesce(c.failures, 0)                  AS failures,
  c.failure_rate,
  c.failures_by_status,
  coalesce(c.conversations_calling, 0)     AS conversations_calling,
  coalesce(c.conversations_affected, 0)    AS conversations_affected,
  c.completion_rate_with_failure,
  c.completion_rate_without_failure,
  c.transfer_rate_with_failure,
  c.transfer_rate_without_failure,
  c.hang_up_rate_with_failure,
  c.hang_up_rate_without_failure
FROM listed r
LEFT JOIN tool_counts tc ON tc.connection_id IS NOT DISTINCT FROM r.connection_id AND r.connection_id IS NOT NULL
LEFT JOIN called c ON c.space IS NOT DISTINCT FROM r.space AND c.connection_id IS NOT DISTINCT FROM r.connection_id
ORDER BY failures DESC, connection_name NULLS LAST, connection_id NULLS LAST, r.space
