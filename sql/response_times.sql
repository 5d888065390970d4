-- Title: Response times per agent and node
--
-- One row: one agent × channel (level agent), and one agent × channel × node where it answered
-- (level node). An answer is an agent turn right after a caller turn; its response time runs
-- from the caller turn's start to the answer's start (turns carry only their start, spoken_at).
-- So on voice it includes how long the caller spoke, and it cannot tell a slow agent from a
-- caller who talked long; compare nodes and agents on one channel, not voice with chat.
--
-- Columns:
--   space           space of the agent
--   agent_id        agent
--   agent_name      agent's name
--   channel         voice or chat
--   level           agent (every node) or node
--   node_key        node of the answers (level node; empty for level agent)
--   answers         answers with a known response time
--   p50_sec         median response time, seconds
--   p90_sec         90th percentile
--   max_sec         longest
--   slow_answers    answers slower than --slow-seconds
--   slow_share      slow_answers ÷ answers
--
-- Parameters: --since, --until, --agent, --channel (filters); --slow-seconds (default 10).

WITH grouped AS (
  SELECT space, agent_id, channel,
         CASE WHEN grouping(node_key) = 1 THEN 'agent' ELSE 'node' END AS level,
         node_key,
         count(*)                                               AS answers,
         quantile_cont(response_sec, [0.5, 0.9])                 AS quantiles,
         max(response_sec)                                       AS max_sec,
         count(*) FILTER (WHERE response_sec > $slow_seconds)    AS slow_answers
  FROM answers
  WHERE response_sec IS NOT NULL
  GROUP BY GROUPING SETS ((space, agent_id, channel), (space, agent_id, channel, node_key))
)
SELECT g.space, g.agent_id, a.name AS agent_name, g.channel, g.level, g.node_key,
       g.answers, g.quantiles[1] AS p50_sec, g.quantiles[2] AS p90_sec, g.max_sec, g.slow_answers,
       ratio(g.slow_answers, g.answers) AS slow_share
FROM grouped g
LEFT JOIN agents a ON a.id = g.agent_id
ORDER BY g.agent_id NULLS LAST, g.space, g.channel, g.level, g.node_key NULLS LAST
