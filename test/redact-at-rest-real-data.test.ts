// Redaction at rest on data as real servers send it: long conversations (bodies kept in parts),
// hard text (strings cut mid-surrogate, control characters), type drift, conversations deleted at
// the source, and detail bodies broken on the wire. A sync with it stores the same conversations,
// rows and detail states as one without, and no datum of the truth in the file or any table.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { fileBytes, foundIn, snapshotTables } from './support/db-snapshot.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('redact-at-rest-real');
const KEY = 'real'.repeat(4) + 'fedcba9876543210fedcba9876543210';
const TABLES = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'detail_drift', 'raw_conversations', 'raw_listed_conversations', 'deleted_conversations'];

let sim: Simulator;
let clearDb: string;
let restDb: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 2704, conversations: 160, rateLimit: 100_000, realData: { long: 0.03, longTurns: [1000, 1200], text: 0.15, drift: 0.2, deleted: 0.05 } });
  const finished = sim.dataset.records.filter((r) => r.summary.outcome !== null).map((r) => r.id);
  sim.realData.set(finished[0]!, { broken: 'invalid_json' });
  sim.realData.set(finished[1]!, { broken: 'invalid_utf8' });
  clearDb = join(fileDir(), 'clear.duckdb');
  restDb = join(fileDir(), 'rest.duckdb');
  for (const [db, args] of [[clearDb, ['sync']], [restDb, ['sync', '--redact-at-rest']]] as const) {
    const r = await runCli([...args], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db, CONVODUCK_REDACT_KEY: KEY });
    expect(r.code, r.stderr).toBe(0);
    await Database.with(db, (d) => d.run('CHECKPOINT'));
  }
}, 300_000);

afterAll(async () => {
  await sim.close();
});

const query = (db: string, sql: string) => Database.with(db, (d) => d.all(sql), { readOnly: true });

describe('sync --redact-at-rest on real data', () => {
  it('stores the same conversations, rows and detail states as a sync without it', async () => {
    for (const t of TABLES) {
      const sql = `SELECT count(*)::INTEGER AS n FROM ${t}`;
      expect(await query(restDb, sql), t).toEqual(await query(clearDb, sql));
    }
    const states = `SELECT id, detail_state, is_final, invalid_reason IS NULL AS usable FROM raw_conversations ORDER BY id`;
    expect(await query(restDb, states)).toEqual(await query(clearDb, states));
    const drift = `SELECT conversation_id, path, kind FROM detail_drift ORDER BY ALL`;
    expect(await query(restDb, drift)).toEqual(await query(clearDb, drift));
    // long bodies are kept in parts there too
    const parts = `SELECT count(DISTINCT id)::INTEGER AS n FROM raw_conversation_parts`;
    expect((await query(clearDb, parts))[0]).not.toEqual({ n: 0 });
    expect(await query(restDb, parts)).toEqual(await query(clearDb, parts));
  }, 300_000);

  it('leaves no datum of the truth in the file bytes or any table', async () => {
    const data = sim.dataset.records.flatMap((r) => sim.dataset.personalData(r.id)?.found ?? []);
    const needles = [...new Set(data.filter((d) => d.kind !== 'name').map((d) => d.value))];
    expect(foundIn(fileBytes(clearDb), needles).length).toBeGreaterThan(0);
    expect(foundIn(fileBytes(restDb), [...needles, KEY])).toEqual([]);
    const forms = [...new Set([...needles, ...needles.map((n) => JSON.stringify(n).slice(1, -1))])];
    for (const [table, { rows }] of await snapshotTables(restDb)) {
      const text = rows.join('\n');
      expect(forms.filter((n) => text.includes(n)), table).toEqual([]);
    }
  }, 300_000);
});
