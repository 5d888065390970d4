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
-- Parameters: --since, --until, --agent, --channel (filters).

SELECT
  space,
  slug,
  tool_name,
  calls,
  failures,
  failure_rate,
  failures_by_status,
  conversations_calling,
  conversations_affected,
  completion_rate_with_failure,
  completion_rate_without_failure,
  transfer_rate_with_failure,
  transfer_rate_without_failure,
  hang_up_rate_with_failure,
  hang_up_rate_without_failure
FROM tool_failure_impact
WHERE per = 'tool'
ORDER BY failures DESC, slug NULLS LAST, space
