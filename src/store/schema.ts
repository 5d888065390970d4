// The DuckDB schema. Public tables (documented in the README) are stable: columns may be
// added, never renamed or removed. `raw_*` tables keep what the API sent; everything else
// is derived from them (see derive.ts), so `convoduck rebuild` never needs the API. A file of an
// older version is brought up to date by migrations.ts.

import { ALERTS_DDL } from './alert-tables.js';
import { ERASURES_DDL } from './erasures.js';
import { REDACTION_AT_REST_DDL } from './redaction-at-rest.js';
import { RECORDINGS_DDL } from './recordings.js';
import { SEARCH_DDL } from './search-index/schema.js';
import { CONVERSATION_FIGURES_DDL } from './figures.js';
import { LOAD_STATE_VIEW_SQL } from './load-state.js';

export const SCHEMA_VERSION = 25;

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
  'recordings',
  'conversation_load_state',
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

/** Every view of convoduck's own: the public ones, and conversation_load_state (load-state.ts). */
export const ALL_VIEWS_SQL = VIEWS_SQL + LOAD_STATE_VIEW_SQL;

/** Tables derived from the raw ones, rebuilt by `rebuild`. */
export const DERIVED_CONVERSATION_TABLES = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'detail_drift'] as const;

/** Columns of `agents` after `body`: the list entry's other fields, and Get agent's behavior and workflow. */
export const AGENT_DETAIL_COLUMNS: readonly (readonly [string, string])[] = [
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
 * The configuration tables' body as received when DuckDB's JSON reader refuses it (a lone UTF-16
 * surrogate); NULL when `body` is the body as received (space-config.ts). Always the last column.
 */
const BODY_RECEIVED_COLUMN = 'body_received VARCHAR';

/** The tables that keep a configuration body as received in body_received. */
export const CONFIG_BODY_TABLES = ['agents', 'tools', 'connections', 'raw_agent_details'] as const;

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
export const BIG_TABLES = {
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
  listing_changed BOOLEAN,
  has_recording_link BOOLEAN
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
-- has_recording_link whether the body carries a recording link. Decided as the body is written and
-- kept as columns, so that no run and no reader parses a stored body again.
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
  ${AGENT_DETAIL_COLUMNS.map(([name, type]) => `${name} ${type}`).join(',\n  ')},
  ${BODY_RECEIVED_COLUMN}
);

-- Each Get agent response exactly as received. Get agent is asked only for an agent that is new
-- or whose list entry changed, so every row is a version of the agent (or a repeat of one).
-- agents' behavior and workflow, agent_versions and workflow_nodes are derived from it.
CREATE TABLE IF NOT EXISTS raw_agent_details (
  agent_id VARCHAR NOT NULL,
  space VARCHAR NOT NULL,
  fetched_at TIMESTAMPTZ NOT NULL,
  body JSON NOT NULL,
  ${BODY_RECEIVED_COLUMN}
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
  body JSON NOT NULL,
  ${BODY_RECEIVED_COLUMN}
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
  body JSON NOT NULL,
  ${BODY_RECEIVED_COLUMN}
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
  newest_started_at TIMESTAMPTZ,
  server_count_excess INTEGER,
  restored_from_copy_at TIMESTAMPTZ,
  damaged_file_kept_as VARCHAR
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

-- The transcript search index (src/store/search-index/schema.ts).
${SEARCH_DDL}

-- Conversations erased (forget, retention): never stored or fetched again (src/store/erasures.ts).
${ERASURES_DDL}

-- Alert evaluations and states (src/store/alert-tables.ts).
${ALERTS_DDL}
${REDACTION_AT_REST_DDL}
${RECORDINGS_DDL}

CREATE TABLE IF NOT EXISTS sync_errors (
  run_id INTEGER NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  stage VARCHAR NOT NULL,
  conversation_id VARCHAR,
  http_status INTEGER,
  message VARCHAR NOT NULL
);
`;
