// The DuckDB schema. Public tables (documented in the README) are stable: columns may be
// added, never renamed or removed. `raw_*` tables keep what the API sent; everything else
// is derived from them (see derive.ts), so `convoduck rebuild` never needs the API.

import { ERASURES_DDL } from '../erase/schema.js';
import { REDACTION_AT_REST_DDL } from './at-rest.js';
import { SEARCH_DDL, SEARCH_MIGRATION } from '../search/schema.js';
import { conversationKeySql } from './conversation-key.js';
import { CONVERSATION_FIGURES_DDL, conversationFiguresSql, turnFiguresSql, VISIT_ENTRY_SQL } from './figures.js';

/** Parts the figures of a stored database are worked out in (schemas 12 and 13). */
const TURN_FIGURES_PARTS = 16;

export const SCHEMA_VERSION = 16;

/** conversation_figures worked out from the stored rows part by part, so that each part's groups fit the writer's memory. */
const FIGURES_IN_PARTS = Array.from(
  { length: TURN_FIGURES_PARTS },
  (_, part) => `INSERT INTO conversation_figures ${conversationFiguresSql(`hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part}`)};`,
).join('\n');

/** Tables users query; `export` writes these. */
export const PUBLIC_TABLES = [
  'conversations',
  'transcript_turns',
  'tool_calls',
  'node_visits',
  'agents',
  'agent_versions',
  'workflow_nodes',
  'tools',
  'connections',
  'detail_drift',
  'sync_runs',
  'sync_errors',
] as const;
export type PublicTable = (typeof PUBLIC_TABLES)[number];

/**
 * Views users query: the conversations with what a newcomer asks for first, their agent's name,
 * without a join to guess. Not exported (`export` writes the tables they read) and never rebuilt:
 * a view holds no rows. Its columns are listed, not `c.*`, so a column added to conversations
 * later is added here by a migration that replaces the view.
 */
export const PUBLIC_VIEWS = ['conversations_named'] as const;

export const VIEWS_SQL = `
CREATE OR REPLACE VIEW conversations_named AS
SELECT c.id, c.space, c.agent_id, a.name AS agent_name, c.channel, c.direction, c.session_ref, c.page_url,
       c.started_at, c.ended_at, c.duration_sec, c.message_count, c.outcome, c.summary, c.is_final,
       c.listed_at, c.detail_fetched_at, c.detail_state, c.deleted_at, c.conversation_key
FROM conversations c
LEFT JOIN agents a ON a.id = c.agent_id;
`;

/** Tables derived from the raw ones, rebuilt by `rebuild`. */
export const DERIVED_CONVERSATION_TABLES = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'detail_drift'] as const;

/** A detail body shows a finished conversation: it has ended_at and outcome (as schema 2 computed it). */
const DETAIL_IS_FINAL = `((body->>'$.data.ended_at') IS NOT NULL AND (body->>'$.data.outcome') IS NOT NULL)`;

/** Columns of `agents` after `body`: the list entry's other fields, and Get agent's behavior and workflow. */
const AGENT_DETAIL_COLUMNS: readonly (readonly [string, string])[] = [
  ['first_message', 'JSON'],
  ['knowledge_ids', 'JSON'],
  ['knowledge_folder_ids', 'JSON'],
  ['phone_number_ids', 'JSON'],
  ['last_synced_at', 'TIMESTAMPTZ'],
  ['behavior', 'JSON'],
  ['workflow', 'JSON'],
  ['detail_fetched_at', 'TIMESTAMPTZ'],
];

/**
 * How the raw bodies are stored. DuckDB's own choice for JSON of a few KB is no compression: the
 * bodies then fill many times more blocks, and every checkpoint of the table loads the metadata of
 * all of them. ZSTD keeps the file and the checkpoints small.
 */
const COMPRESSED = 'USING COMPRESSION zstd';

/**
 * The tables that grow with every conversation. raw_listed_conversations, raw_conversations and
 * conversations hold one row per id without a PRIMARY KEY: a key's index (ART) is loaded whole by
 * every opening of the file for a write, so a sync's memory grew with the database. The writes keep
 * them one row per id instead: each batch deletes its ids and inserts them again in one
 * transaction (writes.ts, derive.ts).
 */
const BIG_TABLES = {
  raw_listed_conversations: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} raw_listed_conversations (
  id VARCHAR NOT NULL,
  space VARCHAR NOT NULL,
  listed_at TIMESTAMPTZ NOT NULL,
  body VARCHAR NOT NULL ${COMPRESSED}
);`,
  raw_conversations: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} raw_conversations (
  id VARCHAR NOT NULL,
  space VARCHAR NOT NULL,
  fetched_at TIMESTAMPTZ NOT NULL,
  body VARCHAR ${COMPRESSED},
  invalid_reason VARCHAR,
  is_final BOOLEAN,
  detail_state VARCHAR,
  listing_changed BOOLEAN
);`,
  conversations: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} conversations (
  id VARCHAR NOT NULL,
  space VARCHAR,
  agent_id VARCHAR,
  channel VARCHAR,
  direction VARCHAR,
  session_ref VARCHAR,
  page_url VARCHAR,
  started_at TIMESTAMPTZ,
  ended_at TIMESTAMPTZ,
  duration_sec INTEGER,
  message_count INTEGER,
  outcome VARCHAR,
  summary VARCHAR,
  is_final BOOLEAN,
  listed_at TIMESTAMPTZ,
  detail_fetched_at TIMESTAMPTZ,
  detail_state VARCHAR,
  deleted_at TIMESTAMPTZ,
  conversation_key UUID
);`,
  transcript_turns: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} transcript_turns (
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  spoken_at TIMESTAMPTZ,
  speaker VARCHAR,
  text VARCHAR,
  node_key VARCHAR,
  words INTEGER,
  response_sec DOUBLE,
  repeat_of_seq INTEGER,
  agent_run INTEGER,
  turns_after INTEGER,
  conversation_key UUID
);`,
  tool_calls: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} tool_calls (
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  called_at TIMESTAMPTZ,
  tool_id VARCHAR,
  slug VARCHAR,
  node_key VARCHAR,
  status VARCHAR,
  input_redacted JSON,
  output_redacted JSON,
  conversation_key UUID
);`,
  node_visits: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} node_visits (
  conversation_id VARCHAR NOT NULL,
  seq INTEGER NOT NULL,
  entered_at TIMESTAMPTZ,
  node_key VARCHAR,
  entry_no INTEGER,
  conversation_key UUID
);`,
  detail_drift: (ifNotExists = '') => `CREATE TABLE ${ifNotExists} detail_drift (
  conversation_id VARCHAR NOT NULL,
  path VARCHAR NOT NULL,
  kind VARCHAR NOT NULL,
  note VARCHAR
);`,
} as const;

/** The sync_errors sentence of a short window (schema 7), and the wording before it. */
const SHORT_WINDOW_SQL = String.raw`'^listing (\S+?)\.\.(\S+) is short: the server counts (\d+) conversations?, (\d+) (?:was|were) served'`;
const SHORT_WINDOW_FORMER_SQL = String.raw`'^listing (\S+?)\.\.(\S+) returned (\d+) of (\d+) conversations'`;

/** SQL that brings a database at schema version (key - 1) to version key. */
export const MIGRATIONS: Readonly<Record<number, string>> = {
  2: `ALTER TABLE raw_conversations ADD COLUMN IF NOT EXISTS is_final BOOLEAN;
      UPDATE raw_conversations SET is_final = ${DETAIL_IS_FINAL};`,
  // The agent's detail columns; those the list entry holds are filled from it at once, behavior
  // and workflow by the next sync's Get agent (every stored agent counts as new to it).
  3: `${AGENT_DETAIL_COLUMNS.map(([name, type]) => `ALTER TABLE agents ADD COLUMN IF NOT EXISTS ${name} ${type};`).join('\n')}
      UPDATE agents SET
        first_message = json_extract(body, '$.first_message'),
        knowledge_ids = json_extract(body, '$.knowledge_ids'),
        knowledge_folder_ids = json_extract(body, '$.knowledge_folder_ids'),
        phone_number_ids = json_extract(body, '$.phone_number_ids'),
        last_synced_at = try_cast(body->>'$.last_synced_at' AS TIMESTAMPTZ);`,
  // One watermark per space (listing_watermarks, created by SCHEMA_SQL). The single watermark of
  // a one-space database belongs to the space its rows carry; with several, to the run that set it.
  4: `INSERT INTO listing_watermarks (space, listed_to)
      SELECT space, listed_to FROM (
        SELECT coalesce(
                 (SELECT any_value(space) FROM raw_listed_conversations HAVING count(DISTINCT space) = 1),
                 (SELECT arg_max(space, run_id) FROM sync_runs
                  WHERE space IS NOT NULL AND window_to = try_cast(m.value AS TIMESTAMPTZ)),
                 (SELECT arg_max(space, listed_at) FROM raw_listed_conversations)) AS space,
               try_cast(m.value AS TIMESTAMPTZ) AS listed_to
        FROM convoduck_meta m WHERE m.key = 'listing_watermark')
      WHERE space IS NOT NULL AND listed_to IS NOT NULL;
      DELETE FROM convoduck_meta WHERE key = 'listing_watermark';`,
  // The big tables lose their PRIMARY KEY (see BIG_TABLES). DuckDB cannot drop a constraint: each
  // table is copied into one defined without it. The child tables are copied too: the copy lays
  // them out in the row groups a writer uses (database.ts), whose checkpoints load a fraction of
  // the metadata.
  5: Object.entries(BIG_TABLES)
    .filter(([table]) => table !== 'detail_drift')
    .map(
      ([table, ddl]) => `ALTER TABLE ${table} RENAME TO ${table}_v4;
      ${ddl()}
      INSERT INTO ${table} BY NAME SELECT * FROM ${table}_v4;
      DROP TABLE ${table}_v4;`,
    )
    .join('\n'),
  // The raw bodies, compressed (see COMPRESSED): a column's compression is fixed when its table is created.
  6: (['raw_listed_conversations', 'raw_conversations'] as const)
    .map(
      (table) => `ALTER TABLE ${table} RENAME TO ${table}_v5;
      ${BIG_TABLES[table]()}
      INSERT INTO ${table} BY NAME SELECT * FROM ${table}_v5;
      DROP TABLE ${table}_v5;`,
    )
    .join('\n'),
  // Bodies kept as received, as text: DuckDB's JSON type refuses what the API may send (a lone
  // UTF-16 surrogate escape). Details already stored were read by the SQL rules: those set aside
  // are fetched once more under today's, the others count as exact.
  7: `${(['raw_listed_conversations', 'raw_conversations'] as const)
    .map(
      (table) => `ALTER TABLE ${table} RENAME TO ${table}_v6;
      ${BIG_TABLES[table]()}
      INSERT INTO ${table} BY NAME SELECT * FROM ${table}_v6;
      DROP TABLE ${table}_v6;`,
    )
    .join('\n')}
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS details_coerced INTEGER DEFAULT 0;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS details_set_aside INTEGER DEFAULT 0;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS conversations_deleted INTEGER DEFAULT 0;
      ALTER TABLE conversations ADD COLUMN IF NOT EXISTS detail_state VARCHAR;
      ALTER TABLE conversations ADD COLUMN IF NOT EXISTS deleted_at TIMESTAMPTZ;
      UPDATE raw_conversations SET
        detail_state = CASE WHEN invalid_reason IS NULL THEN 'exact' ELSE 'set_aside' END,
        listing_changed = invalid_reason IS NOT NULL;
      UPDATE conversations c SET detail_state = r.detail_state FROM raw_conversations r WHERE r.id = c.id;`,
  // Listing gaps as rows (listing_gaps, created by SCHEMA_SQL) from the sentences earlier versions
  // wrote to sync_errors, in both wordings: the one place a gap is ever read out of a message.
  8: `INSERT INTO listing_gaps
      SELECT run_id, space,
             CASE WHEN gap.from_text = 'beginning' THEN NULL ELSE try_cast(gap.from_text AS TIMESTAMPTZ) END,
             try_cast(gap.to_text AS TIMESTAMPTZ), gap.counted::INTEGER, gap.served::INTEGER, occurred_at
      FROM (
        SELECT e.run_id, r.space, e.occurred_at,
               CASE WHEN regexp_matches(e.message, ${SHORT_WINDOW_SQL})
                    THEN regexp_extract(e.message, ${SHORT_WINDOW_SQL}, ['from_text', 'to_text', 'counted', 'served'])
                    ELSE regexp_extract(e.message, ${SHORT_WINDOW_FORMER_SQL}, ['from_text', 'to_text', 'served', 'counted']) END AS gap
        FROM sync_errors e LEFT JOIN sync_runs r USING (run_id)
        WHERE e.stage = 'listing'
          AND (regexp_matches(e.message, ${SHORT_WINDOW_SQL}) OR regexp_matches(e.message, ${SHORT_WINDOW_FORMER_SQL})))
      WHERE try_cast(gap.to_text AS TIMESTAMPTZ) IS NOT NULL
        AND (gap.from_text = 'beginning' OR try_cast(gap.from_text AS TIMESTAMPTZ) IS NOT NULL);`,
  // The erasure log and tombstones of `forget` and retention (src/erase/schema.ts).
  9: ERASURES_DDL,
  10: REDACTION_AT_REST_DDL, // the spaces redacted at rest (src/store/at-rest.ts)
  // The search index (src/search/schema.ts), built from the turns already stored.
  11: SEARCH_MIGRATION,
  // The figures of each turn and conversation (figures.ts) from the rows already stored, the
  // turns' part by part: each part's windows are sorted in memory (or spilled) at once.
  12: `ALTER TABLE transcript_turns RENAME TO transcript_turns_v11;
      ${BIG_TABLES.transcript_turns()}
      ${Array.from({ length: TURN_FIGURES_PARTS }, (_, part) =>
        `INSERT INTO transcript_turns BY NAME ${turnFiguresSql(
          `(SELECT conversation_id, seq, spoken_at, speaker, text, node_key FROM transcript_turns_v11 WHERE hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part})`,
        )};`).join('\n')}
      DROP TABLE transcript_turns_v11;
      ${CONVERSATION_FIGURES_DDL}
      ${FIGURES_IN_PARTS}`,
  // Each node visit's entry number (figures.ts) from the visits already stored, part by part.
  13: `ALTER TABLE node_visits RENAME TO node_visits_v12;
      ${BIG_TABLES.node_visits()}
      ${Array.from({ length: TURN_FIGURES_PARTS }, (_, part) =>
        `INSERT INTO node_visits (conversation_id, seq, entered_at, node_key, entry_no)
         SELECT conversation_id, seq, entered_at, node_key, ${VISIT_ENTRY_SQL}
         FROM node_visits_v12 WHERE hash(conversation_id) % ${TURN_FIGURES_PARTS} = ${part};`).join('\n')}
      DROP TABLE node_visits_v12;`,
  // Each conversation's key (conversation-key.ts) beside its id, in the conversation and its child
  // rows. Tables copied, not updated: an UPDATE of every row rewrites it slower than a copy. The
  // tables migrations 12 and 13 made already have the column (empty): the copy takes every other.
  14: `${(['conversations', 'transcript_turns', 'tool_calls', 'node_visits'] as const)
    .map(
      (table) => `ALTER TABLE ${table} RENAME TO ${table}_v13;
      ${BIG_TABLES[table]()}
      INSERT INTO ${table} BY NAME
        SELECT COLUMNS(c -> c <> 'conversation_key'), ${conversationKeySql(table === 'conversations' ? 'id' : 'conversation_id')} AS conversation_key
        FROM ${table}_v13;
      DROP TABLE ${table}_v13;`,
    )
    .join('\n')}
      ALTER TABLE conversation_figures RENAME TO conversation_figures_v13;
      ${CONVERSATION_FIGURES_DDL}
      INSERT INTO conversation_figures BY NAME
        SELECT COLUMNS(c -> c <> 'conversation_key'), ${conversationKeySql('conversation_id')} AS conversation_key
        FROM conversation_figures_v13;
      DROP TABLE conversation_figures_v13;`,
  // conversations_named: the conversations with their agent's name (a new database gets it from migrate()).
  15: VIEWS_SQL,
  // Listing follows the server's timeline. A watermark set on this machine's clock resumes from the
  // newest started_at the server had sent up to it (a lower point only lists more); a space with
  // nothing stored under it is listed in full once.
  16: `ALTER TABLE listing_watermarks ADD COLUMN IF NOT EXISTS listed_newest TIMESTAMPTZ;
      UPDATE listing_watermarks w SET listed_newest = (
        SELECT max(c.started_at) FROM conversations c WHERE c.space = w.space AND c.started_at <= w.listed_to);
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS clock_skew_seconds DOUBLE;
      ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS newest_started_at TIMESTAMPTZ;`,
};

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS convoduck_meta (
  key VARCHAR PRIMARY KEY,
  value VARCHAR
);

-- Per space, on the server's timeline: conversations started up to listed_to were all listed (the
-- end of the space's last window that was listed completely); listed_newest is the newest started_at
-- the server had sent by then, never past its clock. An incremental sync starts an overlap before it.
CREATE TABLE IF NOT EXISTS listing_watermarks (
  space VARCHAR PRIMARY KEY,
  listed_to TIMESTAMPTZ NOT NULL,
  listed_newest TIMESTAMPTZ
);

-- Each conversation as the list endpoint last returned it.
${BIG_TABLES.raw_listed_conversations('IF NOT EXISTS')}

-- Each detail response body exactly as received. detail_state says how its rows were derived
-- (normalise.ts): exact, coerced by a documented rule, or set_aside (invalid_reason says why;
-- fetched again only once listing_changed says its list entry changed, or on --retry-set-aside).
-- is_final says whether the conversation had finished: a body that had not is fetched again;
-- kept as columns so no run has to re-parse every stored body.
${BIG_TABLES.raw_conversations('IF NOT EXISTS')}

-- The body of a detail too long to keep in one value (raw_conversations.body is then NULL), in
-- order: DuckDB holds a value whole in memory, and a checkpoint re-reads the values of the row
-- group it merges, so one value of megabytes could not be written under the writer's cap.
CREATE TABLE IF NOT EXISTS raw_conversation_parts (
  id VARCHAR NOT NULL,
  part INTEGER NOT NULL,
  text VARCHAR NOT NULL ${COMPRESSED}
);

-- Conversations deleted at the source: their detail answered 404, or a window listed again in
-- full no longer held them. Never fetched again; their stored rows stay (conversations.deleted_at).
CREATE TABLE IF NOT EXISTS deleted_conversations (
  id VARCHAR NOT NULL,
  space VARCHAR NOT NULL,
  seen_deleted_at TIMESTAMPTZ NOT NULL,
  reason VARCHAR NOT NULL,
  run_id INTEGER
);

${BIG_TABLES.conversations('IF NOT EXISTS')}

${BIG_TABLES.transcript_turns('IF NOT EXISTS')}

${BIG_TABLES.tool_calls('IF NOT EXISTS')}

${BIG_TABLES.node_visits('IF NOT EXISTS')}

-- What stored details held that the schema did not expect: unknown fields and values, values
-- coerced, and the reason a detail was set aside; one row per conversation, path, kind and note.
${BIG_TABLES.detail_drift('IF NOT EXISTS')}

CREATE TABLE IF NOT EXISTS agents (
  id VARCHAR PRIMARY KEY,
  space VARCHAR,
  name VARCHAR,
  description VARCHAR,
  status VARCHAR,
  language VARCHAR,
  model VARCHAR,
  voice_id VARCHAR,
  tool_ids JSON,
  sync_status VARCHAR,
  created_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ,
  fetched_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL,
  ${AGENT_DETAIL_COLUMNS.map(([name, type]) => `${name} ${type}`).join(',\n  ')}
);

-- Each Get agent response exactly as received. Get agent is asked only for an agent that is new
-- or whose list entry changed, so every row is a version of the agent (or a repeat of one).
-- agents' behavior and workflow, agent_versions and workflow_nodes are derived from it.
CREATE TABLE IF NOT EXISTS raw_agent_details (
  agent_id VARCHAR NOT NULL,
  space VARCHAR NOT NULL,
  fetched_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL
);

CREATE TABLE IF NOT EXISTS agent_versions (
  agent_id VARCHAR NOT NULL,
  version INTEGER NOT NULL,
  updated_at TIMESTAMPTZ,
  last_synced_at TIMESTAMPTZ,
  status VARCHAR,
  sync_status VARCHAR,
  first_seen_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL
);

CREATE TABLE IF NOT EXISTS workflow_nodes (
  agent_id VARCHAR NOT NULL,
  node_key VARCHAR NOT NULL,
  is_start BOOLEAN NOT NULL,
  node JSON
);

CREATE TABLE IF NOT EXISTS connections (
  id VARCHAR PRIMARY KEY,
  space VARCHAR,
  name VARCHAR,
  kind VARCHAR,
  connector VARCHAR,
  module VARCHAR,
  base_url VARCHAR,
  auth_status VARCHAR,
  tool_count INTEGER,
  created_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ,
  fetched_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL
);

CREATE TABLE IF NOT EXISTS tools (
  id VARCHAR PRIMARY KEY,
  space VARCHAR,
  slug VARCHAR,
  name VARCHAR,
  description VARCHAR,
  connection_id VARCHAR,
  usage_count INTEGER,
  sync_status VARCHAR,
  created_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ,
  fetched_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL
);

CREATE SEQUENCE IF NOT EXISTS sync_run_ids START 1;

CREATE TABLE IF NOT EXISTS sync_runs (
  run_id INTEGER PRIMARY KEY,
  started_at TIMESTAMPTZ NOT NULL,
  ended_at TIMESTAMPTZ,
  status VARCHAR NOT NULL,
  space VARCHAR,
  window_from TIMESTAMPTZ,
  window_to TIMESTAMPTZ,
  requests INTEGER DEFAULT 0,
  throttled INTEGER DEFAULT 0,
  retries INTEGER DEFAULT 0,
  conversations_listed INTEGER DEFAULT 0,
  details_fetched INTEGER DEFAULT 0,
  errors INTEGER DEFAULT 0,
  message VARCHAR,
  details_coerced INTEGER DEFAULT 0,
  details_set_aside INTEGER DEFAULT 0,
  conversations_deleted INTEGER DEFAULT 0,
  clock_skew_seconds DOUBLE,
  newest_started_at TIMESTAMPTZ
);

-- Windows whose listing did not add up: the server counted (server_count) more conversations
-- than it served. A later run of the space that lists the window again closes the gap (status
-- reads which are open). window_from NULL: from the beginning of history.
CREATE TABLE IF NOT EXISTS listing_gaps (
  run_id INTEGER NOT NULL,
  space VARCHAR,
  window_from TIMESTAMPTZ,
  window_to TIMESTAMPTZ NOT NULL,
  server_count INTEGER NOT NULL,
  served INTEGER NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL
);

-- Per conversation with stored rows, its figures (src/store/figures.ts).
${CONVERSATION_FIGURES_DDL}

-- The transcript search index (src/search/schema.ts).
${SEARCH_DDL}

-- Conversations erased (forget, retention): never stored or fetched again (src/erase/schema.ts).
${ERASURES_DDL}
${REDACTION_AT_REST_DDL}

CREATE TABLE IF NOT EXISTS sync_errors (
  run_id INTEGER NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  stage VARCHAR NOT NULL,
  conversation_id VARCHAR,
  http_status INTEGER,
  message VARCHAR NOT NULL
);
`;
