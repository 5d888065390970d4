-- Title: Tool failures per tool, and how conversations with a failure ended
--
-- One row: one tool (by space and slug) that was called at least once. A failure is a call whose status is
-- anything other than `ok`.
--
-- Columns:
--   space                              space of the tool (a slug in two spaces is two tools, two rows)
--   slug                               tool's machine name
--   tool_name                          tool's display name (empty if the tool is not in the tools table)
--   calls                              calls of the tool
--   failures                           calls with a status other than ok
--   failure_rate                       failures ÷ calls
--   failures_by_status                 failures per status, most frequent first, as `status:count; ...`
--                                      (a missing status shows as `null`)
--   conversations_calling              conversations that called the tool
--   conversations_affected             conversations with at least one failed call of the tool
--   completion_rate_with_failure       completed ÷ ended, over the affected conversations
--   completion_rate_without_failure    completed ÷ ended, over conversations that called the tool
--                                      and had no failed call of it
--   transfer_rate_with_failure         transferred ÷ ended, affected conversations
--   transfer_rate_without_failure      transferred ÷ ended, calling conversations without a failure of it
--   hang_up_rate_with_failure          hung_up ÷ ended, affected conversations
--   hang_up_rate_without_failure       hung_up ÷ ended, calling conversations without a failure of it
--
-- Parameters: --from, --to, --agent, --channel (filters).

WITH per_conversation AS (
  -- one row per tool × conversation that called it
  SELECT space, slug, conversation_id, any_value(outcome) AS outcome, bool_or(failed) AS had_failure
  FROM filtered_tool_calls
  GROUP BY space, slug, conversation_id
),
outcome_mix AS (
  SELECT
    space,
    slug,
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
  GROUP BY space, slug
),
by_status AS (
  SELECT space, slug, string_agg(coalesce(status, 'null') || ':' || n, '; ' ORDER BY n DESC, status) AS failures_by_status
  FROM (
    SELECT space, slug, status, count(*) AS n
    FROM filtered_tool_calls
    WHERE failed
    GROUP BY space, slug, status
  )
  GROUP BY space, slug
),
calls AS (
  SELECT
    space,
    slug,
    any_value(tool_name)                 AS tool_name,
    count(*)                             AS calls,
    count(*) FILTER (WHERE failed)       AS failures
  FROM filtered_tool_calls
  GROUP BY space, slug
)
SELECT
  c.space,
  c.slug,
  c.tool_name,
  c.calls,
  c.failures,
  ratio(c.failures, c.calls) AS failure_rate,
  s.failures_by_status,
  m.conversations_calling,
  m.conversations_affected,
  m.completion_rate_with_failure,
  m.completion_rate_without_failure,
  m.transfer_rate_with_failure,
  m.transfer_rate_without_failure,
  m.hang_up_rate_with_failure,
  m.hang_up_rate_without_failure
FROM calls c
LEFT JOIN by_status s ON s.space IS NOT DISTINCT FROM c.space AND s.slug IS NOT DISTINCT FROM c.slug
LEFT JOIN outcome_mix m ON m.space IS NOT DISTINCT FROM c.space AND m.slug IS NOT DISTINCT FROM c.slug
ORDER BY c.failures DESC, c.slug NULLS LAST, c.space
