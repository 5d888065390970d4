// A database of schema 6 (raw bodies as DuckDB JSON, an unusable detail fetched again every run)
// is upgraded on open: bodies kept as text, nothing lost, each detail's state recorded, and a detail
// the old rules refused is fetched once more and stored by today's.
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('schema-7', { rateLimit: 100_000 });

const bodyType = (db: Database, table: string) =>
  db.one<{ t: string }>(`SELECT data_type AS t FROM duckdb_columns() WHERE table_name = ? AND column_name = 'body'`, [table]);

describe('schema 7', () => {
  it('upgrades a schema 6 database: bodies as text, states recorded, a detail the old rules refused fetched once more', async () => {
    const sim = await simulator({ seed: 71, conversations: 200 });
    const dbPath = tempDb();
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    const refused = sim.dataset.conversations.filter((c) => c.outcome !== null)[7]!.id;

    // What schema 6 looked like: JSON bodies, no states, no deletions or drift; and a detail whose
    // message_count came as text, which the rules of then refused (kept raw, fetched every run).
    const before = await Database.with(dbPath, async (db) => {
      for (const table of ['raw_listed_conversations', 'raw_conversations']) {
        const extra = table === 'raw_conversations' ? ', invalid_reason VARCHAR, is_final BOOLEAN' : '';
        const keep = table === 'raw_conversations' ? 'id, space, fetched_at, body::JSON, invalid_reason, is_final' : 'id, space, listed_at, body::JSON';
        const time = table === 'raw_conversations' ? 'fetched_at' : 'listed_at';
        await db.run(`CREATE TABLE ${table}_v6 (id VARCHAR NOT NULL, space VARCHAR NOT NULL, ${time} TIMESTAMPTZ NOT NULL, body JSON NOT NULL${extra})`);
        await db.run(`INSERT INTO ${table}_v6 SELECT ${keep} FROM ${table}`);
        await db.run(`DROP TABLE ${table}`);
        await db.run(`ALTER TABLE ${table}_v6 RENAME TO ${table}`);
      }
      await db.run(
        `UPDATE raw_conversations SET invalid_reason = 'unusable response: message_count is not an integer',
           body = json_merge_patch(body, '{"data":{"message_count":"12"}}') WHERE id = ?`,
        [refused],
      );
      for (const column of ['detail_state', 'deleted_at']) await db.run(`ALTER TABLE conversations DROP COLUMN ${column}`);
      for (const column of ['details_coerced', 'details_set_aside', 'conversations_deleted']) await db.run(`ALTER TABLE sync_runs DROP COLUMN ${column}`);
      await db.run(`DROP TABLE deleted_conversations`);
      await db.run(`DROP TABLE detail_drift`);
      await db.run(`UPDATE convoduck_meta SET value = '6' WHERE key = 'schema_version'`);
      expect(await bodyType(db, 'raw_conversations')).toEqual({ t: 'JSON' });
      return db.all(`SELECT id, space, fetched_at, body::VARCHAR AS body, invalid_reason, is_final FROM raw_conversations ORDER BY id`);
    });

    const status = await runCli(['status', '--db', dbPath, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain(`convoduck: upgrading ${dbPath} from schema 6 to ${SCHEMA_VERSION}, once`);
    expect(JSON.parse(status.stdout).details).toMatchObject({ setAside: 1, deleted: 0, coerced: 0 });
    await Database.with(dbPath, async (db) => {
      expect(await bodyType(db, 'raw_conversations')).toEqual({ t: 'VARCHAR' });
      expect(await bodyType(db, 'raw_listed_conversations')).toEqual({ t: 'VARCHAR' });
      const after = await db.all(`SELECT id, space, fetched_at, body, invalid_reason, is_final FROM raw_conversations ORDER BY id`);
      expect(after).toEqual(before);
      const states = await db.all(`SELECT detail_state, listing_changed, count(*)::INTEGER AS n FROM raw_conversations GROUP BY ALL ORDER BY ALL`);
      expect(states).toEqual([
        { detail_state: 'exact', listing_changed: false, n: 199 },
        { detail_state: 'set_aside', listing_changed: true, n: 1 },
      ]);
    });

    const before2 = sim.requestLog.length;
    const again = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(again.status).toBe('ok');
    const asked = sim.requestLog.slice(before2).filter((r) => r.kind === 'conversation_detail').map((r) => r.path.split('/').at(-1));
    expect(asked).toContain(refused);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
    const third = sim.requestLog.length;
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(sim.requestLog.slice(third).filter((r) => r.kind === 'conversation_detail' && r.path.endsWith(refused))).toEqual([]);
  }, 300_000);
});
