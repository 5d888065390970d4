-- Title: How long ended conversations last, per channel, in fixed duration bands
--
-- One row: one channel with ended conversations × duration band: always all seven bands, zero
-- where none fell in. Bands include their lower bound and exclude their upper one. Ended
-- conversations without a duration are left out.
--
-- Columns:
--   channel          voice or chat
--   band_order       1 (shortest) … 7 (longest)
--   band             the band as people read it: under 15s, 15–30s, 30s–1m, 1–2m, 2–5m, 5–10m,
--                    10m or more
--   from_sec         lower bound in seconds (inclusive)
--   to_sec           upper bound in seconds (exclusive; empty for the last band)
--   conversations    ended conversations of the channel whose duration_sec is in the band
--   share            conversations ÷ the channel's ended conversations with a duration
--
-- Parameters: --since, --until, --agent, --channel (filters).

WITH bands(band_order, band, from_sec, to_sec) AS (
  VALUES (1, 'under 15s', 0, 15), (2, '15–30s', 15, 30), (3, '30s–1m', 30, 60), (4, '1–2m', 60, 120),
         (5, '2–5m', 120, 300), (6, '5–10m', 300, 600), (7, '10m or more', 600, NULL)
),
timed AS (
  SELECT channel, duration_sec
  FROM filtered_conversations
  WHERE ended AND duration_sec IS NOT NULL
),
counts AS (
  SELECT t.channel, b.band_order, count(*) AS conversations
  FROM timed t
  JOIN bands b ON t.duration_sec >= b.from_sec AND (b.to_sec IS NULL OR t.duration_sec < b.to_sec)
  GROUP BY ALL
),
channels AS (
  SELECT channel, count(*) AS timed FROM timed GROUP BY channel
)
SELECT
  c.channel,
  b.band_order::INTEGER                          AS band_order,
  b.band,
  b.from_sec::INTEGER                            AS from_sec,
  b.to_sec::INTEGER                              AS to_sec,
  coalesce(n.conversations, 0)                   AS conversations,
  ratio(coalesce(n.conversations, 0), c.timed)   AS share
FROM channels c
CROSS JOIN bands b
LEFT JOIN counts n ON n.channel IS NOT DISTINCT FROM c.channel AND n.band_order = b.band_order
ORDER BY c.channel NULLS LAST, b.band_order
