// A space whose configuration carries lone UTF-16 surrogates (every agent, tool and connection
// name, each agent's prompt and workflow node titles cut mid-surrogate: realData.configText) over
// real HTTP into a real DuckDB file. The sync ends ok and says how many bodies it stored coerced;
// the rows read U+FFFD where the lone half was, as conversation text does; the bodies as received
// are kept; the api_drift report lists them; report, status, query and rebuild (from the stored
// bodies alone) work on the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { COERCIONS } from '../src/store/normalise.js';
import { runCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb, tempDir } = scratch('config-surrogates', { rateLimit: 100_000 });

const sql = <T>(path: string, text: string): Promise<T[]> => Database.with(path, (d) => d.all<T & Record<string, unknown>>(text), { readOnly: true });

/** A name as the simulator serves it (real-data-config.ts): the high half of 😀 alone at its end. */
const served = (name: string): string => `${name} and then the line was cut \ud83d`;
/** What a client must read: the lone half as U+FFFD. */
const meant = (name: string): string => `${name} and then the line was cut \ufffd`;

interface DriftRow {
  space: string;
  path: string;
  kind: string;
  note: string | null;
  example: string | null;
  conversations: number | null;
  config_bodies: number | null;
  first_seen: string;
  last_seen: string;
}

/** The api_drift report's rows in `dir` (written by `report --format json`). */
const driftRows = (dir: string): DriftRow[] => JSON.parse(readFileSync(join(dir, 'api_drift.json'), 'utf8')) as DriftRow[];

/** The summary's words for the configuration bodies a run stored coerced. */
const coercedLine = (n: number): string => `${n} configuration bodies stored with values coerced (see the api_drift report)`;

/** Every row derived from the configuration, for comparing before and after rebuild. */
const derived = (db: string) =>
  Promise.all([
    sql(db, `SELECT * EXCLUDE (fetched_at, detail_fetched_at) FROM agents ORDER BY id`),
    sql(db, `SELECT * EXCLUDE (fetched_at) FROM tools ORDER BY id`),
    sql(db, `SELECT * EXCLUDE (fetched_at) FROM connections ORDER BY id`),
    sql(db, `SELECT * FROM agent_versions ORDER BY agent_id, version`),
    sql(db, `SELECT * FROM workflow_nodes ORDER BY agent_id, node_key`),
  ]);

describe('a configuration with lone surrogates', () => {
  it('syncs ok, reads U+FFFD, keeps the bodies as received, and every command works on the file', async () => {
    const sim: Simulator = await simulator({ seed: 83, conversations: 12, days: 2, realData: { configText: true } });
    const db = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db };
    const cli = async (args: string[]): Promise<CliResult> => {
      const r = await runCli(args, env);
      expect(r.code, `convoduck ${args.join(' ')}\n${r.stderr}`).toBe(0);
      return r;
    };
    const { agents, tools, connections } = sim.dataset;
    const listed = agents.length + tools.length + connections.length;
    // the first run stores every list entry and every agent's Get agent response coerced
    const synced = await cli(['sync', '--json']);
    expect(JSON.parse(synced.stdout)).toMatchObject({ status: 'ok', errors: 0, configBodiesCoerced: listed + agents.length });
    expect(synced.stderr).toContain(coercedLine(listed + agents.length));

    const byId = <T extends { id: string }>(rows: readonly T[]): T[] => [...rows].sort((a, b) => a.id.localeCompare(b.id));
    type Named = { id: string; name: string; body: string; body_received: string | null };
    const lists: [string, readonly { id: string; name: string }[]][] = [['agents', agents], ['tools', tools], ['connections', connections]];
    for (const [table, records] of lists) {
      const rows = await sql<Named>(db, `SELECT id, name, body::VARCHAR AS body, body_received FROM ${table} ORDER BY id`);
      expect(rows.map((r) => [r.id, r.name]), table).toEqual(byId(records).map((r) => [r.id, meant(r.name)]));
      for (const r of rows) {
        // the body as received keeps the lone half; the body DuckDB reads has U+FFFD in its place
        expect(r.body_received, table).toContain('\\ud83d');
        expect((JSON.parse(r.body_received!) as { name: string }).name).toBe(served(records.find((x) => x.id === r.id)!.name));
        expect((JSON.parse(r.body) as { name: string }).name).toBe(r.name);
      }
    }
    const details = await sql<{ agent_id: string; name: string; received: string }>(
      db,
      `SELECT agent_id, body->>'$.data.name' AS name, body_received AS received FROM raw_agent_details ORDER BY agent_id`,
    );
    expect(details.map((d) => [d.agent_id, d.name])).toEqual(byId(agents).map((a) => [a.id, meant(a.name)]));
    for (const d of details) expect((JSON.parse(d.received) as { data: { name: string } }).data.name).toBe(served(agents.find((a) => a.id === d.agent_id)!.name));
    const prompts = await sql<{ prompt: string }>(db, `SELECT behavior->>'$.rendered_prompt' AS prompt FROM agents`);
    expect(prompts.length).toBe(agents.length);
    for (const p of prompts) expect(p.prompt.startsWith('\ufffd')).toBe(true);
    const nodes = await sql<{ agent_id: string; node_key: string; title: string }>(
      db,
      `SELECT agent_id, node_key, node->>'$.title' AS title FROM workflow_nodes ORDER BY agent_id, node_key`,
    );
    const wantNodes = byId(agents).flatMap((a) =>
      Object.entries(a.workflow.nodes)
        .map(([key, node]) => [a.id, key, meant((node as { title: string }).title)])
        .sort((x, y) => x[1]!.localeCompare(y[1]!)),
    );
    expect(nodes.length).toBeGreaterThan(0);
    expect(nodes.map((n) => [n.agent_id, n.node_key, n.title])).toEqual(wantNodes);
    const versions = await sql<{ name: string }>(db, `SELECT body->>'$.data.name' AS name FROM agent_versions`);
    expect(versions.map((v) => v.name).sort()).toEqual(agents.map((a) => meant(a.name)).sort());

    // the next run finds every agent's version stored: it asks no Get agent, and stores only the lists again
    const before2 = sim.requestLog.length;
    const again = await cli(['sync', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'ok', errors: 0, configBodiesCoerced: listed });
    expect(again.stderr).toContain(coercedLine(listed));
    expect(sim.requestLog.slice(before2).filter((r) => r.client === 'key' && /\/agents\/[^/]+$/.test(r.path))).toEqual([]);

    // every command reads what the sync stored
    const reportDir = join(tempDir(), 'report');
    await cli(['report', '--format', 'json', '--out', reportDir]);
    // api_drift lists the configuration stored coerced, by the conversations' rule, counted in bodies
    const space = sim.dataset.space.slug;
    const configRow = (path: string, bodies: number) => ({
      space,
      path,
      kind: 'coerced',
      note: COERCIONS.loneSurrogate,
      example: null,
      conversations: null,
      config_bodies: bodies,
    });
    const wantConfig = [configRow('agents[]', agents.length), configRow('tools[]', tools.length), configRow('connections[]', connections.length), configRow('agent', agents.length)];
    const drift = driftRows(reportDir);
    const configRows = drift.filter((r) => r.config_bodies !== null);
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    expect(configRows.map(({ first_seen: _f, last_seen: _l, ...r }) => r).sort(byPath)).toEqual(wantConfig.sort(byPath));
    for (const r of drift.filter((d) => d.config_bodies === null)) expect(r.conversations, r.path).toBeGreaterThan(0);
    // the lists were stored again by the second run, the Get agent responses by the first only
    const seen = new Map(configRows.map((r) => [r.path, r]));
    for (const path of ['agents[]', 'tools[]', 'connections[]']) expect(seen.get(path)!.first_seen).toBe(seen.get(path)!.last_seen);
    expect(Date.parse(seen.get('agent')!.last_seen)).toBeLessThan(Date.parse(seen.get('agents[]')!.first_seen));
    // --agent keeps that agent's bodies; tools and connections are the space's
    const oneAgent = join(tempDir(), 'one-agent');
    await cli(['report', 'api_drift', '--agent', agents[0]!.id, '--format', 'json', '--out', oneAgent]);
    expect(
      driftRows(oneAgent)
        .filter((r) => r.config_bodies !== null)
        .map((r) => [r.path, r.config_bodies])
        .sort(),
    ).toEqual([['agent', 1], ['agents[]', 1], ['connections[]', connections.length], ['tools[]', tools.length]].sort());
    const status = JSON.parse((await cli(['status', '--json'])).stdout) as { tables: Record<string, number> };
    expect(status.tables).toMatchObject({ agents: agents.length, tools: tools.length, connections: connections.length });
    const queried = JSON.parse((await cli(['query', '--format', 'json', `SELECT a.name, c.agent_name FROM agents a JOIN conversations_named c ON c.agent_id = a.id LIMIT 1`])).stdout) as { name: string; agent_name: string }[];
    expect(queried[0]!.name.endsWith('\ufffd')).toBe(true);
    expect(queried[0]!.agent_name).toBe(queried[0]!.name);

    // rebuild derives the same rows from the bodies as received alone, without the API: the bodies
    // DuckDB reads are wiped first, and so is everything derived from them
    const before = await derived(db);
    await sim.close();
    await Database.with(db, async (d) => {
      for (const table of ['agents', 'tools', 'connections', 'raw_agent_details']) {
        await d.run(`UPDATE ${table} SET body = '{}' WHERE body_received IS NOT NULL`);
      }
      await d.run(`DELETE FROM agent_versions; DELETE FROM workflow_nodes`);
    });
    await cli(['rebuild']);
    expect(await derived(db)).toEqual(before);
    // and api_drift still lists what was stored coerced
    const rebuilt = join(tempDir(), 'rebuilt');
    await cli(['report', 'api_drift', '--format', 'json', '--out', rebuilt]);
    expect(driftRows(rebuilt).filter((r) => r.config_bodies !== null)).toEqual(configRows);
  }, 120_000);
});
