// Schema 21: each run records what the server counted beyond what it served in its window
// (sync_runs.server_count_excess). A file of schema 20 gets the column, empty for its runs.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('schema-21');

describe('schema 21', () => {
  it('adds sync_runs.server_count_excess, NULL for the runs before', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(21);
    const dbPath = tempDb();
    await Database.with(dbPath, async (db) => {
      await db.run(`INSERT INTO sync_runs (run_id, started_at, status, space) VALUES (1, now(), 'ok', 'acme')`);
      await db.run(`ALTER TABLE sync_runs DROP COLUMN server_count_excess`);
      await db.run(`UPDATE convoduck_meta SET value = '20' WHERE key = 'schema_version'`);
    });
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      expect(await db.all(`SELECT run_id, server_count_excess FROM sync_runs`)).toEqual([{ run_id: 1, server_count_excess: null }]);
    });
  });
});
