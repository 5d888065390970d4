// Generates a convoduck database of N conversations straight in DuckDB (SQL only, no JS per row):
// agents, tools, conversations, transcript_turns, node_visits, tool_calls and the raw detail bodies
// the reports read (raw_conversations), and on request the list entries a sync reads and writes
// (raw_listed_conversations; no report reads them). Values come from hash() of the row number, so
// the same N gives the same data.

import type { Database } from '../store/database.js';
import { CONVERSATION_FIGURES_SQL, turnFiguresSql, VISIT_ENTRY_SQL } from '../store/figures.js';
import { conversationKeySql } from '../store/conversation-key.js';
import { sqlText } from '../store/sql.js';

export interface ScaleCounts {
  conversations: number;
  transcriptTurns: number;
  nodeVisits: number;
  toolCalls: number;
  rawDetails: number;
}

const AGENTS = 12;
const TOOLS = 8;
const END = `TIMESTAMPTZ '2026-11-20 00:00:00+00'`;
const DAYS = 90;

export interface ScaleOptions {
  /** the rows' space (default bench-space) */
  space?: string;
  /** also the list entries (raw_listed_conversations) of the conversations whose final detail is stored: a sync has nothing left to fetch of them */
  listed?: boolean;
}

export async function generateScaleData(db: Database, n: number, options: ScaleOptions = {}): Promise<ScaleCounts> {
  const space = sqlText(options.space ?? 'bench-space');
  await db.run(`SET TimeZone = 'UTC'`);
  await db.run(`
    CREATE OR REPLACE TEMP MACRO bench_uuid(s) AS
      (SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12)
       FROM (SELECT md5(s) AS h))`);
  await db.run(`
    CREATE OR REPLACE TEMP MACRO bench_unit(i, salt) AS (hash(i, salt) % 1000000) / 1000000.0`);

  await db.transaction(async () => {
    await db.run(`
      INSERT INTO agents (id, space, name, description, status, language, model, voice_id, tool_ids, sync_status, created_at, updated_at, fetched_at, body)
      SELECT bench_uuid('agent' || i), ${space}, 'Agent ' || (i + 1), 'benchmark agent', 'active', 'en', NULL, NULL,
             '[]'::JSON, 'synced', ${END} - INTERVAL 400 DAY, ${END} - INTERVAL 10 DAY, ${END}, '{}'::JSON
      FROM range(${AGENTS}) t(i)`);
    await db.run(`
      INSERT INTO tools (id, space, slug, name, description, connection_id, usage_count, sync_status, created_at, updated_at, fetched_at, body)
      SELECT bench_uuid('tool' || i), ${space}, 'tool_' || i, 'Tool ' || i, 'benchmark tool',
             bench_uuid('connection'), 1, 'synced', ${END} - INTERVAL 400 DAY, ${END} - INTERVAL 10 DAY, ${END}, '{}'::JSON
      FROM range(${TOOLS}) t(i)`);

    // One row per conversation with every random draw it needs.
    await db.run(`
      CREATE OR REPLACE TEMP TABLE g AS
      SELECT i,
             bench_uuid('conversation' || i) AS id,
             bench_uuid('agent' || (hash(i, 'agent') % ${AGENTS})) AS agent_id,
             CASE WHEN bench_unit(i, 'channel') < 0.65 THEN 'voice' ELSE 'chat' END AS channel,
             ${END} - to_seconds((hash(i, 'start') % ${DAYS * 86400})::BIGINT) AS started_at,
             (5 + hash(i, 'duration') % 900)::INTEGER AS duration_sec,
             (2 + hash(i, 'messages') % 26)::INTEGER AS message_count,
             (3 + hash(i, 'path') % 5)::INTEGER AS path_len,
             (hash(i, 'tools') % 3)::INTEGER AS tool_count,
             CASE
               WHEN bench_unit(i, 'outcome') < 0.55 THEN 'completed'
               WHEN bench_unit(i, 'outcome') < 0.75 THEN 'transferred'
               WHEN bench_unit(i, 'outcome') < 0.93 THEN 'hung_up'
               WHEN bench_unit(i, 'outcome') < 0.995 THEN 'failed'
               ELSE NULL
             END AS outcome,
             bench_unit(i, 'detail') < 0.995 AS has_detail
      FROM range(${n}) t(i)`);

    await db.run(`
      INSERT INTO conversations
      SELECT id, ${space}, agent_id, channel, 'inbound',
             CASE WHEN channel = 'chat' THEN 'sess_' || i END,
             CASE WHEN channel = 'chat' THEN 'https://shop.example/help' END,
             started_at,
             CASE WHEN outcome IS NOT NULL THEN started_at + to_seconds(duration_sec) END,
             CASE WHEN outcome IS NOT NULL THEN duration_sec END,
             message_count, outcome,
             'The caller asked about order ' || (100000 + i % 900000) || ' and the agent ' ||
               coalesce(outcome, 'is still talking') || '.',
             outcome IS NOT NULL,
             ${END},
             CASE WHEN has_detail THEN ${END} END,
             CASE WHEN has_detail THEN 'exact' END,
             NULL,
             ${conversationKeySql('id')}
      FROM g`);

    // Node path: greeting, middle nodes, then a last node that fits the outcome.
    await db.run(`
      INSERT INTO node_visits
      SELECT conversation_id, seq, entered_at, node_key, ${VISIT_ENTRY_SQL}, ${conversationKeySql('conversation_id')}
      FROM (SELECT id AS conversation_id, seq, started_at + to_seconds(seq * duration_sec // path_len) AS entered_at,
                   CASE
                     WHEN seq = 0 THEN 'greeting'
                     WHEN seq = path_len - 1 AND outcome = 'completed' THEN 'end'
                     WHEN seq = path_len - 1 AND outcome = 'transferred' THEN 'transfer_human'
                     ELSE ['conversation', 'lookup_order', 'faq', 'book_appointment', 'collect_details'][(1 + hash(i, seq, 'node') % 5)::BIGINT]
                   END AS node_key
            FROM g, range(path_len) r(seq)
            WHERE has_detail)`);

    await db.run(`
      INSERT INTO tool_calls
      SELECT id, seq, started_at + to_seconds(10 + seq * 20),
             bench_uuid('tool' || (hash(i, seq, 'tool') % ${TOOLS})), 'tool_' || (hash(i, seq, 'tool') % ${TOOLS}),
             'lookup_order',
             CASE WHEN bench_unit(i * 7 + seq, 'status') < 0.9 THEN 'ok'
                  ELSE ['error', 'timeout', 'http_500'][(1 + hash(i, seq, 'fail') % 3)::BIGINT] END,
             json_object('order_id', 'A' || (100000 + i % 900000)),
             json_object('status', 'shipped', 'eta_days', hash(i, seq) % 5),
             ${conversationKeySql('id')}
      FROM g, range(tool_count) r(seq)
      WHERE has_detail`);

    await db.run(`
      INSERT INTO transcript_turns BY NAME
      ${turnFiguresSql(`(SELECT id AS conversation_id, seq::INTEGER AS seq, started_at + to_seconds(seq * duration_sec // message_count) AS spoken_at,
             CASE WHEN seq % 2 = 0 THEN 'agent' ELSE 'caller' END AS speaker,
             CASE WHEN seq % 2 = 0
                  THEN 'Thank you, let me check that for you. Your order ' || (100000 + i % 900000) || ' is on its way.'
                  ELSE 'Hi, I would like to know where my order is, I ordered it last week.' END AS text,
             'conversation' AS node_key
      FROM g, range(message_count) r(seq)
      WHERE has_detail)`)}`);

    await db.run(`INSERT INTO conversation_figures ${CONVERSATION_FIGURES_SQL}`);

    // The detail bodies as the API sends them (a report reads is_final and invalid_reason; the
    // transcript is there for a realistic body size).
    await db.run(`
      INSERT INTO raw_conversations
      SELECT g.id, ${space}, ${END},
             to_json({'data': {
               'id': g.id, 'agent_id': g.agent_id, 'channel': g.channel, 'direction': 'inbound',
               'started_at': g.started_at, 'ended_at': CASE WHEN outcome IS NOT NULL THEN started_at + to_seconds(duration_sec) END,
               'duration_sec': duration_sec, 'message_count': message_count, 'outcome': outcome,
               'summary': 'The caller asked about order ' || (100000 + i % 900000) || '.',
               'transcript': list_transform(range(message_count), lambda s: {
                 'at': started_at + to_seconds(s * duration_sec // message_count),
                 'speaker': CASE WHEN s % 2 = 0 THEN 'agent' ELSE 'caller' END,
                 'text': CASE WHEN s % 2 = 0
                              THEN 'Thank you, let me check that for you. Your order ' || (100000 + i % 900000) || ' is on its way.'
                              ELSE 'Hi, I would like to know where my order is, I ordered it last week.' END,
                 'node_key': 'conversation'}),
               'tool_calls': [], 'node_path': [], 'recording_url': NULL}}),
             NULL,
             outcome IS NOT NULL,
             'exact',
             false,
             false
      FROM g
      WHERE has_detail`);

    if (options.listed) {
      await db.run(`
        INSERT INTO raw_listed_conversations
        SELECT id, ${space}, ${END},
               to_json({'id': id, 'agent_id': agent_id, 'channel': channel, 'direction': 'inbound',
                        'session_ref': CASE WHEN channel = 'chat' THEN 'sess_' || i END,
                        'page_url': CASE WHEN channel = 'chat' THEN 'https://shop.example/help' END,
                        'started_at': started_at,
                        'ended_at': CASE WHEN outcome IS NOT NULL THEN started_at + to_seconds(duration_sec) END,
                        'duration_sec': CASE WHEN outcome IS NOT NULL THEN duration_sec END,
                        'message_count': message_count, 'outcome': outcome})
        FROM g
        WHERE has_detail AND outcome IS NOT NULL`);
    }
  });
  await db.run('CHECKPOINT');
  const row = await db.one<{ c: number; t: number; v: number; k: number; r: number }>(`
    SELECT (SELECT count(*) FROM conversations)::INTEGER AS c, (SELECT count(*) FROM transcript_turns)::INTEGER AS t,
           (SELECT count(*) FROM node_visits)::INTEGER AS v, (SELECT count(*) FROM tool_calls)::INTEGER AS k,
           (SELECT count(*) FROM raw_conversations)::INTEGER AS r`);
  return {
    conversations: row?.c ?? 0,
    transcriptTurns: row?.t ?? 0,
    nodeVisits: row?.v ?? 0,
    toolCalls: row?.k ?? 0,
    rawDetails: row?.r ?? 0,
  };
}
