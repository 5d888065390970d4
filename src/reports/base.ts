// The relations every report reads, created per `report` run in DuckDB's temp schema (which
// works on a read-only database). The filters (--from, --to, --agent, --channel) are applied
// here, once, with bound parameters, so every report sees exactly the same conversations.
//
// For report authors (documented in docs/reports.md):
//   filtered_conversations  one row per conversation that passes the filters: every column of
//                           `conversations`, plus agent_name, started_local (TIMESTAMP in --tz),
//                           ended, last_node, last_node_at, node_visits, tool_calls,
//                           failed_tool_calls, detail_status
//   filtered_node_visits    node_visits of those conversations, with agent_id, channel, outcome,
//                           last_node of the conversation
//   filtered_tool_calls     tool_calls of those conversations, with tool_name, failed, agent_id,
//                           agent_name, channel, outcome
//   ratio(num, den)         num / den as DOUBLE, NULL when den is 0 or NULL

/** Parameters the base relations are built with (names as bound: `$from`, `$to`, ...). */
export const BASE_PARAMS = ['from', 'to', 'agents', 'channel', 'tz'] as const;

export const BASE_SQL: readonly string[] = [
  `CREATE OR REPLACE TEMP MACRO ratio(num, den) AS
     CASE WHEN den IS NULL OR den = 0 THEN NULL ELSE num::DOUBLE / den END`,

  `CREATE OR REPLACE TEMP TABLE filtered_conversations AS
   WITH selected AS (
     SELECT *
     FROM conversations c
     WHERE ($from IS NULL OR c.started_at >= $from)
       AND ($to IS NULL OR c.started_at < $to)
       AND ($agents IS NULL OR list_contains($agents, c.agent_id))
       AND ($channel IS NULL OR c.channel = $channel)
   ),
   last_visit AS (
     -- "last node": the node_key of the conversation's latest node_path entry (highest seq)
     SELECT conversation_id,
            arg_max(node_key, seq) AS last_node,
            arg_max(entered_at, seq) AS last_node_at,
            count(*) AS node_visits
     FROM node_visits
     WHERE conversation_id IN (SELECT id FROM selected)
     GROUP BY conversation_id
   ),
   calls AS (
     SELECT conversation_id,
            count(*) AS tool_calls,
            count(*) FILTER (WHERE status IS DISTINCT FROM 'ok') AS failed_tool_calls
     FROM tool_calls
     WHERE conversation_id IN (SELECT id FROM selected)
     GROUP BY conversation_id
   )
   SELECT
     c.*,
     a.name AS agent_name,
     timezone($tz, c.started_at) AS started_local,
     c.outcome IS NOT NULL AS ended,
     lv.last_node,
     lv.last_node_at,
     coalesce(lv.node_visits, 0)::INTEGER AS node_visits,
     coalesce(k.tool_calls, 0)::INTEGER AS tool_calls,
     coalesce(k.failed_tool_calls, 0)::INTEGER AS failed_tool_calls,
     CASE
       WHEN c.detail_fetched_at IS NULL AND r.invalid_reason IS NOT NULL THEN 'invalid'
       WHEN c.detail_fetched_at IS NULL THEN 'missing'
       WHEN NOT coalesce(r.is_final, false) THEN 'in_progress'
       ELSE 'stored'
     END AS detail_status
   FROM selected c
   LEFT JOIN agents a ON a.id = c.agent_id
   LEFT JOIN last_visit lv ON lv.conversation_id = c.id
   LEFT JOIN calls k ON k.conversation_id = c.id
   LEFT JOIN raw_conversations r ON r.id = c.id`,

  `CREATE OR REPLACE TEMP VIEW filtered_node_visits AS
   SELECT v.conversation_id, v.seq, v.entered_at, v.node_key,
          c.agent_id, c.channel, c.outcome, c.last_node
   FROM node_visits v
   JOIN filtered_conversations c ON c.id = v.conversation_id`,

  `CREATE OR REPLACE TEMP VIEW filtered_tool_calls AS
   SELECT t.conversation_id, t.seq, t.called_at, t.tool_id, t.slug, t.node_key, t.status,
          t.input_redacted, t.output_redacted,
          tl.name AS tool_name,
          t.status IS DISTINCT FROM 'ok' AS failed,
          c.agent_id, c.agent_name, c.channel, c.outcome
   FROM tool_calls t
   JOIN filtered_conversations c ON c.id = t.conversation_id
   LEFT JOIN tools tl ON tl.id = t.tool_id`,
];
