// The raw bodies are stored compressed (ZSTD), in a new database and in one of schema 5 once a
// convoduck opens it: nothing lost, and a sync goes on from it.
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('compressed-bodies');

const RAW = ['raw_listed_conversations', 'raw_conversations'] as const;

/** How each raw table's body column is stored, read by a plain DuckDB (convoduck's opening would upgrade the file). */
async function bodyCompression(dbPath: string): Promise<Record<string, string[]>> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const out: Record<string, string[]> = {};
    for (const table of RAW) {
      const rows = (
        await conn.runAndReadAll(
          `SELECT DISTINCT compression FROM pragma_storage_info('${table}') WHERE column_name = 'body' AND compression <> 'Constant' ORDER BY ALL`,
        )
      ).getRowObjectsJS();
      out[table] = rows.map((r) => String(r.compression));
    }
    return out;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

const dump = (db: Database) => Promise.all(RAW.map((t) => db.allJson(`SELECT * FROM ${t} ORDER BY id`)));

describe('raw bodies compressed', () => {
  it('a new database stores them with ZSTD; one of schema 5 is upgraded on open, nothing lost, and syncs on', async () => {
    const sim = await simulator({ seed: 47, conversations: 300, rateLimit: 100_000 });
    const dbPath = tempDb();
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    expect(await bodyCompression(dbPath)).toEqual({ raw_listed_conversations: ['ZSTD'], raw_conversations: ['ZSTD'] });

    // What schema 5 looked like: the same tables, the bodies left to DuckDB's choice.
    const before = await Database.with(dbPath, async (db) => {
      for (const table of RAW) {
        await db.run(`CREATE TABLE ${table}_plain AS SELECT * FROM ${table}`);
        await db.run(`DROP TABLE ${table}`);
        await db.run(`ALTER TABLE ${table}_plain RENAME TO ${table}`);
      }
      await db.run(`UPDATE convoduck_meta SET value = '5' WHERE key = 'schema_version'`);
      return dump(db);
    });
    const plain = await bodyCompression(dbPath);
    for (const table of RAW) expect(plain[table]).not.toContain('ZSTD');
    expect(plain.raw_conversations).toEqual(['Uncompressed']);

    // A read-only command upgrades the file first.
    const status = await runCli(['status', '--db', dbPath, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toContain(`convoduck: upgrading ${dbPath} from schema 5 to ${SCHEMA_VERSION}, once`);
    expect(await bodyCompression(dbPath)).toEqual({ raw_listed_conversations: ['ZSTD'], raw_conversations: ['ZSTD'] });
    const after = await Database.with(dbPath, async (db) => {
      const version = await db.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
      expect(version?.value).toBe(String(SCHEMA_VERSION));
      return dump(db);
    });
    expect(after).toEqual(before);

    sim.finishOpenConversations();
    sim.addConversations(40);
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  });
});
