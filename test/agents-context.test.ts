// The agents' context over real HTTP: connections, agents with behavior and workflow, workflow_nodes
// and agent_versions equal the simulator's records; Get agent is asked only for a new or changed
// agent (counted in the simulator's request log), and the history survives rebuild and upgrade.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { sync, type SyncOptions, type SyncProgress } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { expectConfigMatches } from './support/config-vs-simulator.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('agents-context', { rateLimit: 100_000 });

function syncWith(sim: Simulator, dbPath: string, extra: Partial<SyncOptions> = {}) {
  return sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock(), ...extra });
}

/** The Get agent requests (`/agents/{id}`) of our key from request-log index `from` on, by agent id. */
function getAgentRequests(sim: Simulator, from: number): string[] {
  return sim.requestLog
    .slice(from)
    .filter((r) => r.client === 'key' && r.kind === 'agents' && /\/agents\/[^/]+$/.test(r.path))
    .map((r) => r.path.split('/').pop()!)
    .sort();
}

type VersionRow = {
  agent_id: string;
  version: number;
  updated_at: Date | null;
  status: string;
  sync_status: string;
  first_seen_at: Date;
  body: string;
};

const versions = (dbPath: string) =>
  Database.with(dbPath, (db) => db.all<VersionRow>(`SELECT * FROM agent_versions ORDER BY agent_id, version`), { readOnly: true });

const config = (sim: Simulator) => ({ space: sim.dataset.space, agents: sim.dataset.agents, connections: sim.dataset.connections });
const conversations = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

/** What a confidential space serves: no summary, transcript or recording. */
const confidentialConversations = (sim: Simulator) => ({
  conversations: sim.dataset.conversations,
  detail: (id: string) => {
    const { transcript: _t, summary: _s, recording_url: _r, ...rest } = sim.dataset.detail(id)!;
    return { ...rest, summary: null };
  },
});

describe('agents, their flows and connections', () => {
  it('equal the simulator’s records; a run without changes asks no Get agent; an edit costs one and adds one version', async () => {
    const sim = await simulator({ seed: 31, conversations: 300 });
    const dbPath = tempDb();
    const progress: SyncProgress[] = [];
    const first = await syncWith(sim, dbPath, { onProgress: (p) => progress.push({ ...p }) });
    expect(first.status).toBe('ok');
    const agentIds = sim.dataset.agents.map((a) => a.id).sort();
    expect(getAgentRequests(sim, 0)).toEqual(agentIds);
    await expectConfigMatches(dbPath, config(sim));
    const v1 = await versions(dbPath);
    expect(v1.map((v) => [v.agent_id, v.version])).toEqual(agentIds.map((id) => [id, 1]));
    for (const v of v1) {
      expect(JSON.parse(v.body)).toEqual({ data: sim.dataset.agents.find((a) => a.id === v.agent_id) });
    }
    // the ETA counts the Get agents: all of them once the lists are read, none at the end of the step
    const dimensions = progress.filter((p) => p.phase === 'dimensions' && p.requestsLeft !== null);
    expect(dimensions[0]?.requestsLeft).toBe(agentIds.length);
    expect(dimensions.at(-1)?.requestsLeft).toBe(0);

    const beforeSecond = sim.requestLog.length;
    const second = await syncWith(sim, dbPath);
    expect(second.status).toBe('ok');
    expect(getAgentRequests(sim, beforeSecond)).toEqual([]);
    const lists = sim.requestLog.slice(beforeSecond).filter((r) => ['agents', 'tools', 'connections'].includes(r.kind));
    expect(lists.map((r) => r.kind).sort()).toEqual(['agents', 'connections', 'tools']);
    expect(await versions(dbPath)).toEqual(v1);

    // An edit on the platform: a friendlier tone and a flow without the knowledge step.
    const agent = sim.dataset.agents.find((a) => a.status === 'active' && 'faq' in a.workflow.nodes)!;
    const { faq: _faq, ...nodes } = agent.workflow.nodes;
    const edges = Object.fromEntries(
      Object.entries(agent.workflow.edges)
        .filter(([key]) => key !== 'faq')
        .map(([key, next]) => [key, (next as string[]).filter((n) => n !== 'faq')]),
    );
    const editedAt = new Date(Math.floor(sim.clock().getTime() / 1000) * 1000 - 3_600_000);
    sim.editAgent(agent.id, {
      at: editedAt,
      behavior: { values: { tone: { closeness: 'personal' } } },
      workflow: { ...agent.workflow, nodes, edges },
    });
    const beforeThird = sim.requestLog.length;
    const third = await syncWith(sim, dbPath);
    expect(third.status).toBe('ok');
    expect(getAgentRequests(sim, beforeThird)).toEqual([agent.id]);
    await expectConfigMatches(dbPath, config(sim));
    const v2 = await versions(dbPath);
    expect(v2.length).toBe(v1.length + 1);
    const added = v2.filter((v) => !v1.some((old) => old.agent_id === v.agent_id && old.version === v.version));
    expect(added.map((v) => [v.agent_id, v.version, v.updated_at?.getTime()])).toEqual([[agent.id, 2, editedAt.getTime()]]);
    expect(JSON.parse(added[0]!.body)).toEqual({ data: agent });
    expect(v2.filter((v) => v.version === 1)).toEqual(v1);

    // The next run again asks nothing, and the history outlives a rebuild without the API.
    const beforeFourth = sim.requestLog.length;
    await syncWith(sim, dbPath);
    expect(getAgentRequests(sim, beforeFourth)).toEqual([]);
    expect(await versions(dbPath)).toEqual(v2);
    await sim.close();
    await Database.with(dbPath, async (db) => {
      await db.run(`DELETE FROM agent_versions WHERE version = 1`);
      await db.run(`DELETE FROM workflow_nodes WHERE is_start`);
      await db.run(`UPDATE connections SET auth_status = 'tampered'`);
      await db.run(`UPDATE agents SET behavior = NULL, workflow = NULL, first_message = NULL, name = 'tampered'`);
    });
    const rebuilt = await runCli(['rebuild', '--db', dbPath]);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(await versions(dbPath)).toEqual(v2);
    await expectConfigMatches(dbPath, config(sim));
  });

  it('a Get agent response that cannot be stored is an error of the run, and the next run asks again', async () => {
    const sim = await simulator({ seed: 34, conversations: 100 });
    const dbPath = tempDb();
    expect((await syncWith(sim, dbPath)).status).toBe('ok');
    const v1 = await versions(dbPath);
    const agent = sim.dataset.agents.find((a) => a.status === 'active')!;
    const flow = agent.workflow;
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 80; i++) deep = { next: deep };
    sim.editAgent(agent.id, { workflow: { ...flow, nodes: { ...flow.nodes, greeting: deep } } });

    const beforeSecond = sim.requestLog.length;
    const second = await syncWith(sim, dbPath);
    expect(second.status).toBe('errors');
    expect(getAgentRequests(sim, beforeSecond)).toEqual([agent.id]);
    expect(await versions(dbPath)).toEqual(v1);
    const errors = await Database.with(
      dbPath,
      (db) => db.all<{ stage: string; message: string }>(`SELECT stage, message FROM sync_errors WHERE run_id = ?`, [second.runId]),
      { readOnly: true },
    );
    expect(errors).toEqual([{ stage: 'agent', message: `agent ${agent.id}: unusable Get agent response: it nests too deeply to store` }]);

    // The platform serves the same version properly now: its list entry is unchanged, and still asked for.
    agent.workflow = flow;
    const beforeThird = sim.requestLog.length;
    expect((await syncWith(sim, dbPath)).status).toBe('ok');
    expect(getAgentRequests(sim, beforeThird)).toEqual([agent.id]);
    expect((await versions(dbPath)).length).toBe(v1.length + 1);
    await expectConfigMatches(dbPath, config(sim));
  });

  it('stores a confidential space and agents whose workflow is null or empty', async () => {
    const sim = await simulator({ seed: 32, conversations: 200, confidential: true });
    const [none, empty, noNodes] = sim.dataset.agents;
    sim.editAgent(none!.id, { workflow: null });
    sim.editAgent(empty!.id, { workflow: {} });
    sim.editAgent(noNodes!.id, { workflow: { start_node: 'greeting', nodes: {}, edges: {} } });
    const dbPath = tempDb();
    const summary = await syncWith(sim, dbPath);
    expect(summary.status).toBe('ok');
    await expectConfigMatches(dbPath, config(sim));
    await expectStoreMatches(dbPath, confidentialConversations(sim), { confidential: true });
    const stored = await Database.with(
      dbPath,
      (db) =>
        db.all<{ id: string; workflow: string | null; nodes: number }>(
          `SELECT id, workflow, (SELECT count(*)::INTEGER FROM workflow_nodes w WHERE w.agent_id = a.id) AS nodes
           FROM agents a WHERE id IN (?, ?, ?) ORDER BY id`,
          [none!.id, empty!.id, noNodes!.id],
        ),
      { readOnly: true },
    );
    const byId = new Map(stored.map((r) => [r.id, r]));
    expect(byId.get(none!.id)).toEqual({ id: none!.id, workflow: null, nodes: 0 });
    expect(byId.get(empty!.id)).toEqual({ id: empty!.id, workflow: '{}', nodes: 0 });
    expect(byId.get(noNodes!.id)?.nodes).toBe(0);
    expect((await versions(dbPath)).length).toBe(sim.dataset.agents.length);
  });

  it('upgrades a database of the previous schema on the next open; the next sync fills the new tables', async () => {
    const sim = await simulator({ seed: 33, conversations: 150 });
    const dbPath = tempDb();
    await syncWith(sim, dbPath);
    // What schema 2 looked like: none of the agent context.
    await Database.with(dbPath, async (db) => {
      for (const table of ['raw_agent_details', 'agent_versions', 'workflow_nodes', 'connections']) await db.run(`DROP TABLE ${table}`);
      for (const column of ['first_message', 'knowledge_ids', 'knowledge_folder_ids', 'phone_number_ids', 'last_synced_at', 'behavior', 'workflow', 'detail_fetched_at']) {
        await db.run(`ALTER TABLE agents DROP COLUMN ${column}`);
      }
      for (const table of ['agents', 'tools']) await db.run(`ALTER TABLE ${table} DROP COLUMN body_received`);
      await db.run(`UPDATE convoduck_meta SET value = '2' WHERE key = 'schema_version'`);
    });

    // A read-only command upgrades the file: the list entry's fields are there at once.
    const query = await runCli(['query', '--db', dbPath, '--format', 'json', 'SELECT id, first_message, workflow FROM agents ORDER BY id']);
    expect(query.code, query.stderr).toBe(0);
    const rows = JSON.parse(query.stdout) as { id: string; first_message: unknown; workflow: unknown }[];
    const sorted = [...sim.dataset.agents].sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(rows).toEqual(sorted.map((a) => ({ id: a.id, first_message: a.first_message, workflow: null })));
    const version = await Database.with(dbPath, (db) => db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`));
    expect(version?.value).toBe(String(SCHEMA_VERSION));

    const before = sim.requestLog.length;
    expect((await syncWith(sim, dbPath)).status).toBe('ok');
    expect(getAgentRequests(sim, before)).toEqual(sorted.map((a) => a.id));
    await expectConfigMatches(dbPath, config(sim));
    await expectStoreMatches(dbPath, conversations(sim));
  });
});
