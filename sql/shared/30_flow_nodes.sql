-- flow_nodes: the nodes of each agent's current workflow, for the agents the filters select
--
-- One row: one node of the workflow stored for an agent (workflow_nodes: the newest Get agent
-- response), for each agent with at least one filtered conversation whose node path is known.
-- Reports join it to show the nodes no conversation reached (with zero counts), and which node
-- the flow starts at. Agents whose workflow is not stored, or has no nodes, are in no row.
--
-- Columns:
--   space        space of the agent
--   agent_id     agent
--   agent_name   agent's name
--   node_key     node of the agent's current workflow
--   is_start     the workflow's start_node

SELECT a.space, w.agent_id, a.name AS agent_name, w.node_key, w.is_start
FROM workflow_nodes w
LEFT JOIN agents a ON a.id = w.agent_id
WHERE w.agent_id IN (SELECT agent_id FROM filtered_conversations WHERE node_visits > 0)
