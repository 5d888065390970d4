-- Title: Search matches: conversations whose turns hold every word of a saved query, per day
--
-- One row: one day (the conversations' start, in --tz) × agent with at least one conversation
-- that has a matching turn. A turn matches when it holds every term of --search as `convoduck
-- search` reads words (lower-cased, common words left out, plurals folded: docs/commands.md).
-- Without --search the report has no rows: it is meant for a scheduled run with one query, e.g.
-- convoduck report search_matches --search "refund not received" --since yesterday --until today.
--
-- Columns:
--   day                      day the conversations started, in --tz
--   space                    space of the agent
--   agent_id                 agent
--   agent_name               agent's name
--   query                    the --search text
--   matching_turns           turns holding every term of the query
--   matching_conversations   conversations with at least one matching turn
--   conversations            conversations of the agent that started that day
--   match_rate               matching_conversations ÷ conversations
--
-- Parameters: $search (--search), and the filters through filtered_conversations.

WITH query_terms AS (SELECT unnest(search_query_terms($search::VARCHAR)) AS term),
matching_turns AS (
  SELECT conversation_id, seq
  FROM search_terms
  WHERE term IN (SELECT term FROM query_terms)
  GROUP BY conversation_id, seq
  HAVING count(DISTINCT term) = (SELECT count(*) FROM query_terms)
),
per_conversation AS (
  SELECT conversation_id, count(*) AS turns FROM matching_turns GROUP BY conversation_id
)
SELECT c.started_local::DATE AS day,
       c.space,
       c.agent_id,
       c.agent_name,
       $search::VARCHAR AS query,
       coalesce(sum(p.turns), 0)::INTEGER AS matching_turns,
       count(p.conversation_id)::INTEGER AS matching_conversations,
       count(*)::INTEGER AS conversations,
       ratio(count(p.conversation_id), count(*)) AS match_rate
FROM filtered_conversations c
LEFT JOIN per_conversation p ON p.conversation_id = c.id
WHERE $search::VARCHAR IS NOT NULL
GROUP BY ALL
HAVING count(p.conversation_id) > 0
ORDER BY day, c.space, c.agent_name, c.agent_id
