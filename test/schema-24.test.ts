// Schema 24: the configuration tables keep a body DuckDB's JSON reader refuses as received
// (body_received). A file of schema 23 gets the column, NULL for the bodies it holds (DuckDB read
// each of them as received), and its rows are re-derived from them as before.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { rebuild } from '../src/store/derive.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('schema-24');
const TABLES = ['agents', 'tools', 'connections', 'raw_agent_details'];

describe('schema 24', () => {
  it('adds body_received to the configuration tables, NULL for the bodies stored before', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(24);
    const dbPath = tempDb();
    const agent = { id: 'a1', name: 'Front desk 😀', status: 'active', updated_at: '2026-01-02T03:04:05Z' };
    await Database.with(dbPath, async (db) => {
      await db.run(`INSERT INTO agents (id, space, name, fetched_at, body) VALUES ('a1', 'acme', 'stale', now(), ?::JSON)`, [JSON.stringify(agent)]);
      await db.run(`INSERT INTO raw_agent_details (agent_id, space, fetched_at, body) VALUES ('a1', 'acme', now(), ?::JSON)`, [JSON.stringify({ data: agent })]);
      for (const table of TABLES) await db.run(`ALTER TABLE ${table} DROP COLUMN body_received`);
      await db.run(`UPDATE convoduck_meta SET value = '23' WHERE key = 'schema_version'`);
    });
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      for (const table of TABLES) {
        expect(await db.one(`SELECT count(*)::INTEGER AS n, count(body_received)::INTEGER AS received FROM ${table}`), table).toEqual({
          n: ['agents', 'raw_agent_details'].includes(table) ? 1 : 0,
          received: 0,
        });
      }
      await rebuild(db);
      expect(await db.all(`SELECT id, name, body_received FROM agents`)).toEqual([{ id: 'a1', name: agent.name, body_received: null }]);
      expect(await db.all(`SELECT agent_id, version, status FROM agent_versions`)).toEqual([{ agent_id: 'a1', version: 1, status: 'active' }]);
    });
  });
});
