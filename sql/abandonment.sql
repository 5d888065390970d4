-- Title: Containment and abandonment per agent and day
--
-- One row: one day (in --tz) × agent with ended conversations. The API does not say which nodes
-- end a flow, so the stored paths do: an agent's end nodes are the nodes where at least one of
-- its completed conversations ended and that none of its conversations ever left (entered, then
-- moved on to another node), among the conversations selected. A hang-up whose last node is an
-- end node came after the flow had finished (contained); any other hang-up is abandoned,
-- including those whose node path is unknown (no detail stored): nothing shows they got there.
--
-- Columns:
--   day                   day the conversations started, in --tz
--   space                 space of the agent
--   agent_id              agent
--   agent_name            agent's name
--   ended                 conversations with an outcome
--   completed_at_end      completed, last node an end node
--   completed_elsewhere   completed, last node not an end node (or unknown)
--   hung_up_at_end        hung_up, last node an end node
--   contained             completed_at_end + completed_elsewhere + hung_up_at_end
--   transferred           outcome transferred
--   abandoned             hung_up before reaching an end node
--   failed                outcome failed
--   other                 an outcome the API spec does not list
--   containment_rate      contained ÷ ended
--   transfer_rate         transferred ÷ ended
--   abandonment_rate      abandoned ÷ ended
--   failure_rate          failed ÷ ended
--
-- Parameters: --since, --until, --agent, --channel (filters); --tz (day boundaries).

WITH left_nodes AS (
  -- nodes some conversation left: a conversation's last visit is one of the visits of the node it
  -- ended at, so the visits that were left are the visits less those ended there
  SELECT space, agent_id, node_key
  FROM node_visitors
  WHERE visits > ended_here
),
end_nodes AS (
  SELECT DISTINCT space, agent_id, last_node AS node_key
  FROM filtered_conversations
  WHERE outcome = 'completed' AND last_node IS NOT NULL
  EXCEPT
  SELECT space, agent_id, node_key FROM left_nodes
),
marked AS (
  SELECT c.started_local::DATE AS day, c.space, c.agent_id, c.outcome,
         e.node_key IS NOT NULL AS at_end
  FROM filtered_conversations c
  LEFT JOIN end_nodes e
    ON e.space = c.space AND e.agent_id IS NOT DISTINCT FROM c.agent_id AND e.node_key = c.last_node
  WHERE c.ended
),
counted AS (
  SELECT day, space, agent_id,
         count(*)                                                        AS ended,
         count(*) FILTER (WHERE outcome = 'completed' AND at_end)        AS completed_at_end,
         count(*) FILTER (WHERE outcome = 'completed' AND NOT at_end)    AS completed_elsewhere,
         count(*) FILTER (WHERE outcome = 'hung_up' AND at_end)          AS hung_up_at_end,
         count(*) FILTER (WHERE outcome = 'transferred')                 AS transferred,
         count(*) FILTER (WHERE outcome = 'hung_up' AND NOT at_end)      AS abandoned,
         count(*) FILTER (WHERE outcome = 'failed')                      AS failed,
         count(*) FILTER (WHERE outcome NOT IN ('completed', 'transferred', 'hung_up', 'failed')) AS other
  FROM marked
  GROUP BY day, space, agent_id
)
SELECT k.day, k.space, k.agent_id, a.name AS agent_name, k.ended,
       k.completed_at_end, k.completed_elsewhere, k.hung_up_at_end,
       k.completed_at_end + k.completed_elsewhere + k.hung_up_at_end              AS contained,
       k.transferred, k.abandoned, k.failed, k.other,
       ratio(k.completed_at_end + k.completed_elsewhere + k.hung_up_at_end, k.ended) AS containment_rate,
       ratio(k.transferred, k.ended)                                              AS transfer_rate,
       ratio(k.abandoned, k.ended)                                                AS abandonment_rate,
       ratio(k.failed, k.ended)                                                   AS failure_rate
FROM counted k
LEFT JOIN agents a ON a.id = k.agent_id
ORDER BY k.day, k.agent_id NULLS LAST, k.space
