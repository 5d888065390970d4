// Compares the space's configuration in a convoduck database (agents with their detail columns,
// workflow_nodes, connections) with the simulator's own records, field by field.

import { expect } from 'vitest';
import type { AgentDetail, ConnectionDetail } from '../../src/api/types.js';
import { Database } from '../../src/store/database.js';

export interface ConfigData {
  space: { slug: string };
  agents: AgentDetail[];
  connections: ConnectionDetail[];
}

const ms = (value: unknown): number | null =>
  value === null || value === undefined ? null : new Date(value as string | Date).getTime();

const json = (value: unknown): unknown => (value === null || value === undefined ? null : JSON.parse(value as string));

/** A JSON null is stored as an empty value. */
const orNull = (value: unknown): unknown => (value === undefined ? null : value);

/** The nodes of a workflow as workflow_nodes should hold them, sorted by node_key. */
export function expectedNodes(agentId: string, workflow: unknown): { agent_id: string; node_key: string; is_start: boolean; node: unknown }[] {
  if (typeof workflow !== 'object' || workflow === null) return [];
  const { nodes, start_node } = workflow as { nodes?: unknown; start_node?: unknown };
  if (typeof nodes !== 'object' || nodes === null || Array.isArray(nodes)) return [];
  return Object.entries(nodes as Record<string, unknown>)
    .map(([node_key, node]) => ({ agent_id: agentId, node_key, is_start: node_key === start_node, node }))
    .sort((a, b) => (a.node_key < b.node_key ? -1 : 1));
}

/** Expects agents (list and detail columns), workflow_nodes and connections to equal the simulator's. */
export async function expectConfigMatches(dbPath: string, data: ConfigData): Promise<void> {
  const db = await Database.open(dbPath, { readOnly: true });
  try {
    const agents = await db.all(`SELECT * FROM agents ORDER BY id`);
    const expectedAgents = [...data.agents].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(agents.map((a) => a.id)).toEqual(expectedAgents.map((a) => a.id));
    for (const [i, row] of agents.entries()) {
      const a = expectedAgents[i]!;
      const { behavior, workflow, ...listed } = a;
      expect({
        space: row.space,
        name: row.name,
        description: row.description,
        status: row.status,
        language: row.language,
        model: row.model,
        voice_id: row.voice_id,
        tool_ids: json(row.tool_ids),
        sync_status: row.sync_status,
        created_at: ms(row.created_at),
        updated_at: ms(row.updated_at),
        last_synced_at: ms(row.last_synced_at),
        first_message: json(row.first_message),
        knowledge_ids: json(row.knowledge_ids),
        knowledge_folder_ids: json(row.knowledge_folder_ids),
        phone_number_ids: json(row.phone_number_ids),
        behavior: json(row.behavior),
        workflow: json(row.workflow),
        body: json(row.body),
        body_received: row.body_received,
        detail_fetched: row.detail_fetched_at !== null,
      }).toEqual({
        space: data.space.slug,
        name: a.name,
        description: a.description,
        status: a.status,
        language: a.language,
        model: a.model,
        voice_id: a.voice_id,
        tool_ids: a.tool_ids,
        sync_status: a.sync_status,
        created_at: ms(a.created_at),
        updated_at: ms(a.updated_at),
        last_synced_at: ms(a.last_synced_at),
        first_message: a.first_message,
        knowledge_ids: a.knowledge_ids,
        knowledge_folder_ids: a.knowledge_folder_ids,
        phone_number_ids: a.phone_number_ids,
        behavior: orNull(behavior),
        workflow: orNull(workflow),
        body: listed,
        // the body as received only when DuckDB cannot read it as it is (a lone surrogate)
        body_received: null,
        detail_fetched: true,
      });
    }

    const nodes = await db.all(`SELECT * FROM workflow_nodes ORDER BY agent_id, node_key`);
    expect(nodes.map((n) => ({ ...n, node: json(n.node) }))).toEqual(expectedAgents.flatMap((a) => expectedNodes(a.id, a.workflow)));

    const connections = await db.all(`SELECT * FROM connections ORDER BY id`);
    const expectedConnections = [...data.connections].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(
      connections.map((c) => ({ ...c, created_at: ms(c.created_at), updated_at: ms(c.updated_at), fetched_at: undefined, body: json(c.body) })),
    ).toEqual(
      expectedConnections.map(({ tools: _tools, ...c }) => ({
        id: c.id,
        space: data.space.slug,
        name: c.name,
        kind: c.kind,
        connector: c.connector,
        module: c.module,
        base_url: c.base_url,
        auth_status: c.auth_status,
        tool_count: c.tool_count,
        created_at: ms(c.created_at),
        updated_at: ms(c.updated_at),
        fetched_at: undefined,
        body: c,
        body_received: null,
      })),
    );
  } finally {
    db.close();
  }
}
