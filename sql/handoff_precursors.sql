-- Title: What precedes a hand-off: events in the last turns before a transfer or hang-up
--
-- One row: one agent × outcome (transferred, hung_up) × event seen before at least one such end.
-- The end window of a conversation is its last --last-turns turns, and for tool calls the time
-- from the first of them (its spoken_at) to the end. Events in it: failed_tool (a tool call with
-- a status other than ok, called in the window), slow_answer (an answer in the window, slower
-- than --slow-seconds, as in response_times), loop (a turn in the window at a node the
-- conversation entered more than --loop-visits times), repeat (an agent turn in the window
-- repeating an earlier one word for word, as in loops) and node (a turn in the window at
-- node_key). Only ended conversations with a transcript count. The lift compares with the
-- agent's completed conversations.
--
-- Columns:
--   space                   space of the agent
--   agent_id                agent
--   agent_name              agent's name
--   outcome                 transferred or hung_up
--   event                   failed_tool, slow_answer, loop, repeat or node
--   node_key                the node (event node); empty otherwise
--   conversations           the agent's conversations with this outcome
--   with_event              of those, with the event in their end window
--   share                   with_event ÷ conversations
--   completed               the agent's completed conversations
--   completed_with_event    of those, with the event in their end window
--   completed_share         completed_with_event ÷ completed
--   lift                    share ÷ completed_share: how many times more often the event comes
--                           before this end than before a completion (empty when completed_share is 0)
--   latest_conversation_id  the most recent of the with_event conversations: one to read
--   latest_started_at       when it started
--
-- Parameters: --since, --until, --agent, --channel (filters); --last-turns (default 4),
-- --slow-seconds (default 10), --loop-visits (default 2).

WITH windows AS (
  -- each conversation's window and the events its turns hold, grouped straight from the stored
  -- turns (turns_after, response_sec and repeat_of_seq are worked out as each turn is stored), then
  -- joined to its conversation: joining each turn first would carry its fields through the grouping
  SELECT c.conversation_key, c.id AS conversation_id, c.space, c.agent_id, c.outcome, c.started_at,
         w.window_start, w.slow_answer, w.repeat
  FROM (
    SELECT conversation_key, min(spoken_at) AS window_start,
           bool_or(response_sec > $slow_seconds::INTEGER) AS slow_answer,
           bool_or(repeat_of_seq IS NOT NULL) AS repeat
    FROM transcript_turns
    WHERE turns_after < $last_turns::INTEGER
    GROUP BY conversation_key
  ) w
  JOIN filtered_conversations c ON c.conversation_key = w.conversation_key
  WHERE c.outcome IN ('completed', 'transferred', 'hung_up')
),
window_nodes AS (
  -- the nodes in each window (a list per window costs more to build), with the window's conversation
  SELECT w.*, n.node_key
  FROM (SELECT DISTINCT conversation_key, node_key
        FROM transcript_turns
        WHERE turns_after < $last_turns::INTEGER AND node_key IS NOT NULL) n
  JOIN windows w ON w.conversation_key = n.conversation_key
),
events AS (
  -- each branch is one event, at most once per conversation (and node): no row repeats another
  SELECT space, agent_id, outcome, conversation_id, started_at, 'failed_tool' AS event, NULL AS node_key
  FROM windows w
  WHERE EXISTS (SELECT 1 FROM filtered_tool_calls k
                WHERE k.conversation_key = w.conversation_key AND k.failed AND k.called_at >= w.window_start)
  UNION ALL
  SELECT space, agent_id, outcome, conversation_id, started_at, 'slow_answer', NULL FROM windows WHERE slow_answer
  UNION ALL
  SELECT space, agent_id, outcome, conversation_id, started_at, 'repeat', NULL FROM windows WHERE repeat
  UNION ALL
  SELECT DISTINCT n.space, n.agent_id, n.outcome, n.conversation_id, n.started_at, 'loop', NULL
  FROM window_nodes n
  JOIN filtered_node_visits v ON v.conversation_key = n.conversation_key AND v.node_key = n.node_key
  WHERE v.entry_no > $loop_visits::INTEGER
  UNION ALL
  SELECT space, agent_id, outcome, conversation_id, started_at, 'node', node_key FROM window_nodes
),
totals AS (
  SELECT space, agent_id, outcome, count(*) AS n
  FROM windows
  GROUP BY space, agent_id, outcome
),
counted AS (
  SELECT space, agent_id, outcome, event, node_key, count(*) AS n,
         first(conversation_id ORDER BY started_at DESC, conversation_id) AS latest_conversation_id,
         max(started_at) AS latest_started_at
  FROM events
  GROUP BY space, agent_id, outcome, event, node_key
)
SELECT h.space, h.agent_id, a.name AS agent_name, h.outcome, h.event, h.node_key,
       t.n                                     AS conversations,
       h.n                                     AS with_event,
       ratio(h.n, t.n)                         AS share,
       coalesce(tc.n, 0)                       AS completed,
       coalesce(c.n, 0)                        AS completed_with_event,
       ratio(coalesce(c.n, 0), tc.n)           AS completed_share,
       ratio(ratio(h.n, t.n), ratio(coalesce(c.n, 0), tc.n)) AS lift,
       h.latest_conversation_id,
       h.latest_started_at
FROM counted h
JOIN totals t ON t.space = h.space AND t.agent_id IS NOT DISTINCT FROM h.agent_id AND t.outcome = h.outcome
LEFT JOIN totals tc ON tc.space = h.space AND tc.agent_id IS NOT DISTINCT FROM h.agent_id AND tc.outcome = 'completed'
LEFT JOIN counted c ON c.space = h.space AND c.agent_id IS NOT DISTINCT FROM h.agent_id AND c.outcome = 'completed'
                   AND c.event = h.event AND c.node_key IS NOT DISTINCT FROM h.node_key
LEFT JOIN agents a ON a.id = h.agent_id
WHERE h.outcome IN ('transferred', 'hung_up')
ORDER BY h.agent_id NULLS LAST, h.space, h.outcome DESC, h.event, h.node_key NULLS LAST
