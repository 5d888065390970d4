-- Title: API drift: what the API sends that the schema does not know
--
-- One row: one path and kind of surprise in the stored details of one space, over the
-- conversations selected, or in the space's stored configuration. Read it to learn of an API
-- change from convoduck rather than from a broken dashboard: unknown fields are kept in the raw
-- body (raw_conversations.body) but in no table; unknown values are stored as sent; coerced values
-- follow the rules in docs/schema.md; set-aside details are kept raw and stored as rows once their
-- list entry changes (or on `sync --retry-set-aside`). A configuration body with a lone UTF-16
-- surrogate is stored coerced (U+FFFD), the body as received kept in its body_received: its rows
-- are those of the configuration as stored, whatever --since, --until and --channel (which select
-- conversations); --agent keeps the agents given. Over a lake (--lake) the Get agent responses
-- are not there: only the list entries' rows show.
--
-- Columns:
--   space          space the conversations or the configuration belong to
--   path           where in the detail: a field of the conversation, or of every entry of a
--                  list (`transcript[].confidence`); for a configuration body, which one:
--                  `agents[]`, `tools[]`, `connections[]` (an entry of that list) or `agent`
--                  (a Get agent response)
--   kind           unknown_field, unknown_value, coerced or set_aside
--   note           the JSON type of an unknown field, the unknown value, or the coercion rule;
--                  empty for set_aside (see example)
--   example        one reason a detail was set aside (set_aside only)
--   conversations  conversations whose stored detail had it; empty on a configuration row
--   config_bodies  configuration bodies stored coerced: one list entry per agent, tool or
--                  connection, or each Get agent response kept (one per version fetched);
--                  empty on a conversation row
--   first_seen     when the first of those details or bodies was fetched (UTC)
--   last_seen      when the latest of them was fetched (UTC)
--
-- Parameters: --since, --until, --agent, --channel (filters; a conversation by its start).

WITH conversation_rows AS (
  SELECT
    f.space,
    d.path,
    d.kind,
    CASE WHEN d.kind = 'set_aside' THEN NULL ELSE d.note END AS note,
    CASE WHEN d.kind = 'set_aside' THEN min(d.note) END AS example,
    count(DISTINCT d.conversation_id) AS conversations,
    NULL::BIGINT AS config_bodies,
    min(r.fetched_at) AS first_seen,
    max(r.fetched_at) AS last_seen
  FROM detail_drift d
  JOIN filtered_conversations f ON f.id = d.conversation_id
  LEFT JOIN raw_conversations r ON r.id = d.conversation_id
  GROUP BY f.space, d.path, d.kind, CASE WHEN d.kind = 'set_aside' THEN NULL ELSE d.note END
),
-- a configuration body differs from the one received only by the lone-surrogate rule
-- (space-config.ts): body_received is kept exactly then, and only then
coerced_bodies AS (
  SELECT space, 'agents[]' AS path, fetched_at FROM agents
  WHERE body_received IS NOT NULL AND ($agents::VARCHAR[] IS NULL OR list_contains($agents::VARCHAR[], id))
  UNION ALL
  SELECT space, 'tools[]', fetched_at FROM tools WHERE body_received IS NOT NULL
  UNION ALL
  SELECT space, 'connections[]', fetched_at FROM connections WHERE body_received IS NOT NULL
  UNION ALL
  SELECT space, 'agent', fetched_at FROM raw_agent_details
  WHERE body_received IS NOT NULL AND ($agents::VARCHAR[] IS NULL OR list_contains($agents::VARCHAR[], agent_id))
),
config_rows AS (
  SELECT
    space,
    path,
    'coerced' AS kind,
    coercion_rule('loneSurrogate') AS note,
    NULL AS example,
    NULL::BIGINT AS conversations,
    count(*) AS config_bodies,
    min(fetched_at) AS first_seen,
    max(fetched_at) AS last_seen
  FROM coerced_bodies
  GROUP BY space, path
)
SELECT * FROM conversation_rows
UNION ALL
SELECT * FROM config_rows
ORDER BY conversations DESC NULLS LAST, config_bodies DESC NULLS LAST, space, path, kind, note
