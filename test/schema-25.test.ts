// Schema 25: a run that found its file damaged and put the last-good copy in its place records it
// (sync_runs.restored_from_copy_at, damaged_file_kept_as). A file of schema 24 gets the columns,
// empty for its runs.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('schema-25');

describe('schema 25', () => {
  it('adds sync_runs.restored_from_copy_at and damaged_file_kept_as, NULL for the runs before', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(25);
    const dbPath = tempDb();
    await Database.with(dbPath, async (db) => {
      await db.run(`INSERT INTO sync_runs (run_id, started_at, status, space) VALUES (1, now(), 'ok', 'acme')`);
      await db.run(`ALTER TABLE sync_runs DROP COLUMN restored_from_copy_at`);
      await db.run(`ALTER TABLE sync_runs DROP COLUMN damaged_file_kept_as`);
      await db.run(`UPDATE convoduck_meta SET value = '24' WHERE key = 'schema_version'`);
    });
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      expect(await db.all(`SELECT run_id, restored_from_copy_at, damaged_file_kept_as FROM sync_runs`)).toEqual([
        { run_id: 1, restored_from_copy_at: null, damaged_file_kept_as: null },
      ]);
    });
  });
});
