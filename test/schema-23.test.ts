// Schema 23: each alert evaluation keeps why it was skipped, or why a crossing stayed ok
// (alert_evaluations.reason). A file of schema 22 gets the column, NULL for the rows evaluated before.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('schema-23');

describe('schema 23', () => {
  it('adds alert_evaluations.reason, NULL for the rows evaluated before', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(23);
    const dbPath = tempDb();
    await Database.with(dbPath, async (db) => {
      await db.run(
        `INSERT INTO alert_evaluations (rule, group_key, period_start, period_end, value, level, evaluated_at)
         VALUES ('r', '{"space":"acme"}', '2026-11-20'::TIMESTAMPTZ, '2026-11-21'::TIMESTAMPTZ, 1, 'skipped', now())`,
      );
      await db.run(`ALTER TABLE alert_evaluations DROP COLUMN reason`);
      await db.run(`UPDATE convoduck_meta SET value = '22' WHERE key = 'schema_version'`);
    });
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      expect(await db.all(`SELECT rule, level, reason FROM alert_evaluations`)).toEqual([{ rule: 'r', level: 'skipped', reason: null }]);
    });
  });
});
