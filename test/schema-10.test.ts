// A database of schema 9 has no redaction_at_rest table: opening it upgrades it to an empty one,
// every space of it counts as stored in clear, and a sync without the setting runs as before.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('schema-10', { rateLimit: 100_000 });

describe('schema 10', () => {
  it('adds an empty redaction_at_rest to a schema 9 database; a sync without the setting runs on', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(10);
    const sim = await simulator({ seed: 10, conversations: 40 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    await Database.with(dbPath, async (db) => {
      await db.run(`DROP TABLE redaction_at_rest`);
      await db.run(`UPDATE convoduck_meta SET value = '9' WHERE key = 'schema_version'`);
    });

    const run = await runCli(['sync'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`convoduck: upgrading ${dbPath} from schema 9 to ${SCHEMA_VERSION}, once`);
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT count(*)::INTEGER AS n FROM redaction_at_rest`)).toEqual({ n: 0 });
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      expect(await db.one(`SELECT count(*)::INTEGER AS n FROM conversations`)).toEqual({ n: 40 });
    }, { readOnly: true });
  }, 300_000);
});
