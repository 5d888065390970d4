-- Title: Coverage: how complete the stored data is, per day
--
-- One row: one day (in --tz) with conversations. Read it before trusting the other reports:
-- node, tool and transcript figures only cover conversations whose detail is stored.
--
-- Columns:
--   day                    day the conversations started, in --tz
--   conversations          conversations known (listed, or fetched directly)
--   listed                 conversations the list endpoint returned
--   details_stored         conversations with a stored detail of the ended conversation
--   details_coerced        of details_stored, those with a value coerced by a documented rule
--   details_in_progress    detail stored, but fetched while the conversation was still running
--                          (transcript may be incomplete; the next sync fetches it again)
--   details_set_aside      detail fetched but not storable as rows (kept raw with the reason;
--                          fetched again once its list entry changes, or on --retry-set-aside)
--   details_deleted        deleted at the source before a detail was stored (never fetched again)
--   details_missing        no detail fetched yet
--   details_with_errors    conversations without a usable detail that have a sync error recorded
--   detail_coverage        details_stored ÷ (conversations − details_deleted): of what can still
--                          be had
--   recordings_expected    conversations whose stored detail has a recording link (counted once
--                          `sync --recordings` has tried any; 0 before)
--   recordings_stored      recordings downloaded, verified and kept (docs/recordings.md)
--   recordings_missing     recordings the host did not have, or that could not be stored
--   recordings_expired     recordings whose link was refused even after one fresh link
--
-- Deleted conversations stay in every report: they happened. conversations.deleted_at marks them.
--
-- Parameters: --since, --until, --agent, --channel (filters); --tz (day boundaries).

-- counted once recordings are kept; whether a detail has a link was decided as it was written
WITH recording_links AS (
  SELECT conversation_id AS id FROM conversation_load_state
  WHERE (SELECT count(*) FROM recordings) > 0 AND has_recording_link
)
SELECT
  started_local::DATE                                                 AS day,
  count(*)                                                            AS conversations,
  count(*) FILTER (WHERE listed_at IS NOT NULL)                       AS listed,
  count(*) FILTER (WHERE detail_status = 'stored')                    AS details_stored,
  count(*) FILTER (WHERE detail_status = 'stored' AND detail_state = 'coerced') AS details_coerced,
  count(*) FILTER (WHERE detail_status = 'in_progress')               AS details_in_progress,
  count(*) FILTER (WHERE detail_status = 'set_aside')                 AS details_set_aside,
  count(*) FILTER (WHERE detail_status = 'deleted')                   AS details_deleted,
  count(*) FILTER (WHERE detail_status = 'missing')                   AS details_missing,
  count(*) FILTER (WHERE detail_status IN ('set_aside', 'missing')
                     AND id IN (SELECT conversation_id FROM sync_errors WHERE conversation_id IS NOT NULL))
                                                                      AS details_with_errors,
  ratio(count(*) FILTER (WHERE detail_status = 'stored'),
        count(*) FILTER (WHERE detail_status <> 'deleted'))           AS detail_coverage,
  count(*) FILTER (WHERE id IN (SELECT id FROM recording_links))      AS recordings_expected,
  count(*) FILTER (WHERE recording_state = 'stored')                  AS recordings_stored,
  count(*) FILTER (WHERE recording_state NOT IN ('stored', 'expired')) AS recordings_missing,
  count(*) FILTER (WHERE recording_state = 'expired')                 AS recordings_expired
FROM filtered_conversations LEFT JOIN (SELECT conversation_id AS id, state AS recording_state FROM recordings) USING (id)
GROUP BY day
ORDER BY day NULLS LAST
