-- Title: Loops and repetition per agent and node
--
-- One row: one agent × node × kind that happened in at least one conversation. Kind revisit: the
-- conversation entered the node more than --loop-visits times. Kind repeat: an agent turn at the
-- node said, character for character, what an earlier agent turn of the conversation said. Only
-- ended conversations whose node path is stored count; the rates compare those with the loop
-- against the agent's other ones (the rest).
--
-- Columns:
--   space                     space of the agent
--   agent_id                  agent
--   agent_name                agent's name
--   node_key                  node of the loop (revisit) or of the repeated turn (repeat)
--   kind                      revisit or repeat
--   conversations             conversations with it
--   agent_conversations       the agent's ended conversations with a stored node path
--   share                     conversations ÷ agent_conversations
--   max_entries               revisit: most entries of the node in one conversation; repeat: empty
--   completion_rate           completed ÷ conversations
--   completion_rate_rest      the same over the agent's other conversations
--   transfer_rate             transferred ÷ conversations
--   transfer_rate_rest        …
--   hang_up_rate              hung_up ÷ conversations
--   hang_up_rate_rest         …
--
-- Parameters: --since, --until, --agent, --channel (filters); --loop-visits (default 2).

WITH base AS (
  SELECT conversation_key, space, agent_id, outcome
  FROM filtered_conversations
  WHERE ended AND node_visits > 0
),
flagged AS (
  SELECT b.space, b.agent_id, b.outcome, v.node_key, 'revisit' AS kind, v.entries
  -- entry_no counts a conversation's entries into a node: its highest is how many there were
  FROM (SELECT conversation_key, node_key, max(entry_no)::BIGINT AS entries
        FROM filtered_node_visits
        WHERE entry_no > $loop_visits
        GROUP BY conversation_key, node_key) v
  JOIN base b ON b.conversation_key = v.conversation_key
  UNION ALL
  -- the repeated turns (repeated_turns) taken straight from the stored turns and joined to base
  -- once per conversation and node, not once per turn
  SELECT b.space, b.agent_id, b.outcome, r.node_key, 'repeat' AS kind, NULL AS entries
  FROM (SELECT DISTINCT conversation_key, node_key FROM transcript_turns WHERE repeat_of_seq IS NOT NULL) r
  JOIN base b ON b.conversation_key = r.conversation_key
),
agent_totals AS (
  SELECT space, agent_id,
         count(*)                                         AS n,
         count(*) FILTER (WHERE outcome = 'completed')    AS completed,
         count(*) FILTER (WHERE outcome = 'transferred')  AS transferred,
         count(*) FILTER (WHERE outcome = 'hung_up')      AS hung_up
  FROM base
  GROUP BY space, agent_id
),
per_group AS (
  SELECT f.space, f.agent_id, f.node_key, f.kind,
         count(*)                                           AS n,
         max(f.entries)                                     AS max_entries,
         count(*) FILTER (WHERE f.outcome = 'completed')    AS completed,
         count(*) FILTER (WHERE f.outcome = 'transferred')  AS transferred,
         count(*) FILTER (WHERE f.outcome = 'hung_up')      AS hung_up
  FROM flagged f
  GROUP BY f.space, f.agent_id, f.node_key, f.kind
)
SELECT g.space, g.agent_id, a.name AS agent_name, g.node_key, g.kind,
       g.n                                                  AS conversations,
       t.n                                                  AS agent_conversations,
       ratio(g.n, t.n)                                      AS share,
       g.max_entries,
       ratio(g.completed, g.n)                              AS completion_rate,
       ratio(t.completed - g.completed, t.n - g.n)          AS completion_rate_rest,
       ratio(g.transferred, g.n)                            AS transfer_rate,
       ratio(t.transferred - g.transferred, t.n - g.n)      AS transfer_rate_rest,
       ratio(g.hung_up, g.n)                                AS hang_up_rate,
       ratio(t.hung_up - g.hung_up, t.n - g.n)              AS hang_up_rate_rest
FROM per_group g
JOIN agent_totals t ON t.space = g.space AND t.agent_id IS NOT DISTINCT FROM g.agent_id
LEFT JOIN agents a ON a.id = g.agent_id
ORDER BY g.agent_id NULLS LAST, g.space, g.kind DESC, g.node_key NULLS LAST
