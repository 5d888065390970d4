// The space's configuration: agents, tools and connections as their lists return them, and the
// Get agent responses (behavior, workflow) kept raw in raw_agent_details. Every column is derived
// from a stored body by the SQL below, during a sync and again by `rebuild`, so the two agree.
// A body DuckDB's JSON reader refuses (a lone UTF-16 surrogate) is kept as received in
// body_received; its `body` is the same JSON with U+FFFD in place of each lone half (wellFormedJson),
// decided when it is written.

import { stage } from './batch-sql.js';
import type { Database } from './database.js';
import { CONFIG_BODY_TABLES } from './schema.js';
import { wellFormedJson } from './normalise.js';

export interface ListedRecord {
  id: string;
  /** the list entry's JSON text */
  body: string;
}

export interface AgentDetailResponse {
  agentId: string;
  fetchedAt: Date;
  /** the Get agent response body's JSON text, exactly as received */
  body: string;
}

export interface SpaceConfig {
  space: string;
  fetchedAt: Date;
  agents: ListedRecord[];
  tools: ListedRecord[];
  connections: ListedRecord[];
  details: AgentDetailResponse[];
}

/** A JSON `null` is an empty value (spec conventions): stored as SQL NULL. */
const nonNull = (json: string): string => `CASE WHEN json_type(${json}) = 'NULL' THEN NULL ELSE ${json} END`;

/** Two timestamps in any ISO form name the same instant (text equality when one does not parse). */
const sameInstant = (a: string, b: string): string =>
  `coalesce(try_cast((${a}) AS TIMESTAMPTZ) = try_cast((${b}) AS TIMESTAMPTZ), (${a}) IS NOT DISTINCT FROM (${b}))`;

/**
 * The newest Get agent body of each agent `of` selects (a condition on agent_id): `agent_id,
 * fetched_at, body, a` (a = body.data). A sync names the agents it writes: every space's bodies
 * grouped at each write needed memory in proportion to all of them.
 */
const latestDetail = (of = 'true'): string => `
  SELECT agent_id, max(fetched_at) AS fetched_at, arg_max(body, fetched_at) AS body,
         json_extract(arg_max(body, fetched_at), '$.data') AS a
  FROM raw_agent_details
  WHERE ${of}
  GROUP BY agent_id`;

/**
 * Each table's columns from a relation `l` with `space, fetched_at, body` (b: the body as JSON);
 * agents also joins `d`, the agent's newest Get agent response (latestDetail).
 */
const COLUMNS = {
  agents: `
    b->>'$.id', coalesce(b->>'$.space', l.space), b->>'$.name', b->>'$.description', b->>'$.status',
    b->>'$.language', b->>'$.model', b->>'$.voice_id', json_extract(b, '$.tool_ids'), b->>'$.sync_status',
    try_cast(b->>'$.created_at' AS TIMESTAMPTZ), try_cast(b->>'$.updated_at' AS TIMESTAMPTZ),
    l.fetched_at, b,
    ${nonNull(`coalesce(json_extract(b, '$.first_message'), json_extract(d.a, '$.first_message'))`)},
    ${nonNull(`coalesce(json_extract(b, '$.knowledge_ids'), json_extract(d.a, '$.knowledge_ids'))`)},
    ${nonNull(`coalesce(json_extract(b, '$.knowledge_folder_ids'), json_extract(d.a, '$.knowledge_folder_ids'))`)},
    ${nonNull(`coalesce(json_extract(b, '$.phone_number_ids'), json_extract(d.a, '$.phone_number_ids'))`)},
    try_cast(b->>'$.last_synced_at' AS TIMESTAMPTZ),
    ${nonNull(`json_extract(d.a, '$.behavior')`)},
    ${nonNull(`json_extract(d.a, '$.workflow')`)},
    d.fetched_at`,
  tools: `
    b->>'$.id', l.space, b->>'$.slug', b->>'$.name', b->>'$.description', b->>'$.connection_id',
    try_cast(b->>'$.usage_count' AS INTEGER), b->>'$.sync_status',
    try_cast(b->>'$.created_at' AS TIMESTAMPTZ), try_cast(b->>'$.updated_at' AS TIMESTAMPTZ),
    l.fetched_at, b`,
  connections: `
    b->>'$.id', l.space, b->>'$.name', b->>'$.kind', b->>'$.connector', b->>'$.module', b->>'$.base_url',
    b->>'$.auth_status', try_cast(b->>'$.tool_count' AS INTEGER),
    try_cast(b->>'$.created_at' AS TIMESTAMPTZ), try_cast(b->>'$.updated_at' AS TIMESTAMPTZ),
    l.fetched_at, b`,
} as const;

type ConfigTable = keyof typeof COLUMNS;

/** A body as stored: the JSON DuckDB reads, and the text as received when that differs (else null). */
function asStored(received: string): [string, string | null] {
  const body = wellFormedJson(received);
  return [body, body === received ? null : received];
}

const RECORD_COLUMNS = ['id', 'body', 'received'];
const records = (list: ListedRecord[]): (string | null)[][] => list.map((r) => [r.id, ...asStored(r.body)]);

/**
 * The listed agents whose Get agent is due: new, or their list entry names another version than
 * the newest Get agent stored (updated_at, last_synced_at, status or sync_status differ). An agent
 * whose Get agent failed has none stored for its version, so the next run asks again.
 */
export async function agentsToFetch(db: Database, agents: ListedRecord[]): Promise<string[]> {
  if (agents.length === 0) return [];
  await stage(db, '_listed_agents', RECORD_COLUMNS, records(agents));
  const rows = await db.all<{ id: string }>(`
    WITH l AS (SELECT DISTINCT ON (id) id, body::JSON AS b FROM _listed_agents),
    d AS (${latestDetail(`agent_id IN (SELECT id FROM _listed_agents)`)})
    SELECT l.id
    FROM l LEFT JOIN d ON d.agent_id = l.id
    WHERE d.agent_id IS NULL
       OR NOT ${sameInstant(`l.b->>'$.updated_at'`, `d.a->>'$.updated_at'`)}
       OR NOT ${sameInstant(`l.b->>'$.last_synced_at'`, `d.a->>'$.last_synced_at'`)}
       OR (l.b->>'$.status') IS DISTINCT FROM (d.a->>'$.status')
       OR (l.b->>'$.sync_status') IS DISTINCT FROM (d.a->>'$.sync_status')
    ORDER BY l.id`);
  return rows.map((r) => r.id);
}

/** Stores one run's configuration (lists and Get agent responses) and re-derives what depends on it. */
export async function saveSpaceConfig(db: Database, config: SpaceConfig): Promise<void> {
  const at = config.fetchedAt.toISOString();
  const lists: [ConfigTable, ListedRecord[]][] = [
    ['agents', config.agents],
    ['tools', config.tools],
    ['connections', config.connections],
  ];
  for (const [table, list] of lists) await stage(db, `_listed_${table}`, RECORD_COLUMNS, records(list));
  await stage(
    db,
    '_agent_details',
    ['id', 'fetched_at', 'body', 'received'],
    config.details.map((d) => [d.agentId, d.fetchedAt.toISOString(), ...asStored(d.body)]),
  );
  await db.transaction(async () => {
    await db.run(
      `INSERT INTO raw_agent_details (agent_id, space, fetched_at, body, body_received)
       SELECT id, ?, fetched_at::TIMESTAMPTZ, body::JSON, received FROM _agent_details`,
      [config.space],
    );
    for (const [table] of lists) {
      await db.run(`DELETE FROM ${table} WHERE id IN (SELECT id FROM _listed_${table})`);
      await insertRows(
        db,
        table,
        `SELECT DISTINCT ON (id) ?::VARCHAR AS space, ?::TIMESTAMPTZ AS fetched_at, body::JSON AS body, received FROM _listed_${table}`,
        [config.space, at],
        `agent_id IN (SELECT id FROM _listed_agents)`,
      );
    }
    // only the agents with a new Get agent response have a new history
    await deriveAgentHistory(db, `agent_id IN (SELECT id FROM _agent_details)`);
  });
}

/**
 * The configuration bodies of `space` stored coerced (body_received kept) by a write at or after
 * `since`: the list entries and Get agent responses a run starting then stored so. Each run stores
 * the lists again, so their entries count in every run; a Get agent response only when fetched.
 */
export async function countCoercedBodies(db: Database, space: string, since: Date): Promise<number> {
  const counts = CONFIG_BODY_TABLES.map(
    (table) => `SELECT count(*) AS n FROM ${table} WHERE space = $space AND fetched_at >= $since::TIMESTAMPTZ AND body_received IS NOT NULL`,
  );
  const row = await db.one<{ n: number }>(`SELECT sum(n)::INTEGER AS n FROM (${counts.join(' UNION ALL ')})`, { space, since: since.toISOString() });
  return row?.n ?? 0;
}

/**
 * Inserts `table`'s rows derived from `source` (space, fetched_at, body, received: the body as
 * received when it differs, the table's last column); `agents` are those `of` selects.
 */
async function insertRows(db: Database, table: ConfigTable, source: string, params?: string[], agents?: string): Promise<void> {
  const detail = table === 'agents' ? `LEFT JOIN (${latestDetail(agents)}) d ON d.agent_id = (l.b->>'$.id')` : '';
  await db.run(
    `INSERT INTO ${table}
     SELECT ${COLUMNS[table]}, l.received
     FROM (SELECT space, fetched_at, body AS b, received FROM (${source})) l ${detail}`,
    params,
  );
}

/**
 * `table`'s bodies DuckDB reads, written again from the bodies as received (body_received) by the
 * rule a sync applies: what `rebuild` derives from. `key` names the rows.
 */
async function rederiveBodies(db: Database, table: string, key: string): Promise<void> {
  const rows = await db.all<{ k: string; received: string }>(`SELECT ${key} AS k, body_received AS received FROM ${table} WHERE body_received IS NOT NULL`);
  if (rows.length === 0) return;
  const bodies = new Map(rows.map((r) => [r.k, wellFormedJson(r.received)]));
  await stage(db, '_rederived', ['k', 'body'], bodies);
  await db.run(`UPDATE ${table} t SET body = r.body::JSON FROM _rederived r WHERE t.${key} = r.k`);
  await db.run(`DROP TABLE _rederived`);
}

/**
 * Re-derives agents (with behavior and workflow from raw_agent_details), tools and connections from
 * their stored bodies, then agent_versions and workflow_nodes from raw_agent_details: what `rebuild` does for them.
 */
export async function deriveSpaceConfig(db: Database): Promise<void> {
  await rederiveBodies(db, 'raw_agent_details', 'body_received');
  for (const table of Object.keys(COLUMNS) as ConfigTable[]) {
    await db.run(`CREATE OR REPLACE TEMP TABLE _stored_${table} AS SELECT id, space, fetched_at, body, body_received FROM ${table}`);
    await rederiveBodies(db, `_stored_${table}`, 'id');
    await db.run(`DELETE FROM ${table}`);
    await insertRows(db, table, `SELECT space, fetched_at, body, body_received AS received FROM _stored_${table}`);
    await db.run(`DROP TABLE _stored_${table}`);
  }
  await deriveAgentHistory(db);
}

/**
 * agent_versions (one row per distinct version:
 * updated_at, last_synced_at, status, sync_status, first seen by the earliest response that showed
 * it) and workflow_nodes (the nodes of each agent's newest workflow, when `nodes` is an object).
 */
async function deriveAgentHistory(db: Database, of = 'true'): Promise<void> {
  await db.run(`DELETE FROM agent_versions WHERE ${of}`);
  await db.run(`
    INSERT INTO agent_versions
    WITH keyed AS (
      SELECT agent_id, fetched_at, body,
             try_cast(body->>'$.data.updated_at' AS TIMESTAMPTZ) AS updated_at,
             try_cast(body->>'$.data.last_synced_at' AS TIMESTAMPTZ) AS last_synced_at,
             body->>'$.data.status' AS status,
             body->>'$.data.sync_status' AS sync_status
      FROM raw_agent_details
      WHERE ${of}
    ),
    versions AS (
      SELECT agent_id, updated_at, last_synced_at, status, sync_status,
             min(fetched_at) AS first_seen_at, arg_min(body, fetched_at) AS body
      FROM keyed
      GROUP BY agent_id, updated_at, last_synced_at, status, sync_status
    )
    SELECT agent_id,
           row_number() OVER (PARTITION BY agent_id ORDER BY first_seen_at, updated_at NULLS FIRST)::INTEGER,
           updated_at, last_synced_at, status, sync_status, first_seen_at, body
    FROM versions`);
  await db.run(`DELETE FROM workflow_nodes WHERE ${of}`);
  await db.run(`
    INSERT INTO workflow_nodes
    SELECT w.agent_id, n.key, coalesce(n.key = (w.wf->>'$.start_node'), false), n.value
    FROM (SELECT agent_id, json_extract(a, '$.workflow') AS wf FROM (${latestDetail(of)})) w,
         json_each(json_extract(w.wf, '$.nodes')) n
    WHERE json_type(w.wf, '$.nodes') = 'OBJECT'`);
}
