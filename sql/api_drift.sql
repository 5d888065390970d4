-- Title: API drift: what the API sends that the schema does not know
--
-- One row: one path and kind of surprise in the stored details of one space, over the
-- conversations selected. Read it to learn of an API change from convoduck rather than from a
-- broken dashboard: unknown fields are kept in the raw body (raw_conversations.body) but in no
-- table; unknown values are stored as sent; coerced values follow the rules in docs/schema.md;
-- set-aside details are kept raw and stored as rows once their list entry changes (or on
-- `sync --retry-set-aside`).
--
-- Columns:
--   space          space the conversations belong to
--   path           where in the detail: a field of the conversation, or of every entry of a
--                  list (`transcript[].confidence`)
--   kind           unknown_field, unknown_value, coerced or set_aside
--   note           the JSON type of an unknown field, the unknown value, or the coercion rule;
--                  empty for set_aside (see example)
--   example        one reason a detail was set aside (set_aside only)
--   conversations  conversations whose stored detail had it
--   first_seen     when the first of those details was fetched (UTC)
--   last_seen      when the latest of them was fetched (UTC)
--
-- Parameters: --since, --until, --agent, --channel (filters; by the conversation's start).

SELECT
  f.space,
  d.path,
  d.kind,
  CASE WHEN d.kind = 'set_aside' THEN NULL ELSE d.note END AS note,
  CASE WHEN d.kind = 'set_aside' THEN min(d.note) END AS example,
  count(DISTINCT d.conversation_id) AS conversations,
  min(r.fetched_at) AS first_seen,
  max(r.fetched_at) AS last_seen
FROM detail_drift d
JOIN filtered_conversations f ON f.id = d.conversation_id
LEFT JOIN raw_conversations r ON r.id = d.conversation_id
GROUP BY f.space, d.path, d.kind, CASE WHEN d.kind = 'set_aside' THEN NULL ELSE d.note END
ORDER BY conversations DESC, f.space, d.path, d.kind, note
