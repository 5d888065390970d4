// The figures of each transcript turn (words, response_sec, repeat_of_seq, agent_run, turns_after),
// of each node visit (entry_no, schema 13) and of each conversation (conversation_figures), and
// each row's conversation_key (schema 14), are worked out in TypeScript as the rows are stored, and
// in SQL when a database of schema 11 is upgraded: both rules must give the same values, hard text
// and drifting types included.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('schema-12', { rateLimit: 100_000 });

const FIGURES = `SELECT conversation_id, seq, words, response_sec, repeat_of_seq, agent_run, turns_after
  FROM transcript_turns ORDER BY conversation_id, seq`;
const CONVERSATION_FIGURES = `SELECT * FROM conversation_figures ORDER BY conversation_id`;
const VISITS = `SELECT * FROM node_visits ORDER BY conversation_id, seq`;
const CONVERSATIONS = `SELECT * FROM conversations ORDER BY id`;
const CALLS = `SELECT * FROM tool_calls ORDER BY conversation_id, seq`;

describe('schema 12', () => {
  it('works out the figures of a schema 11 database as a sync stores them, nothing else changed', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(12);
    const sim = await simulator({ seed: 12, conversations: 120, realData: { text: 0.2, drift: 0.2, long: 0.02, longTurns: [1000, 1100] } });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    const stored = await Database.with(dbPath, async (db) => {
      const rows = await db.all(FIGURES);
      const conversations = await db.all(CONVERSATION_FIGURES);
      const visits = await db.all(VISITS);
      const conversations_ = await db.all(CONVERSATIONS);
      const calls = await db.all(CALLS);
      await db.run(`DROP TABLE conversation_figures; ALTER TABLE node_visits DROP COLUMN entry_no`);
      const turns = await db.all(`SELECT * EXCLUDE (words, response_sec, repeat_of_seq, agent_run, turns_after) FROM transcript_turns ORDER BY conversation_id, seq`);
      await db.run(`ALTER TABLE transcript_turns DROP COLUMN words; ALTER TABLE transcript_turns DROP COLUMN response_sec;
        ALTER TABLE transcript_turns DROP COLUMN repeat_of_seq; ALTER TABLE transcript_turns DROP COLUMN agent_run; ALTER TABLE transcript_turns DROP COLUMN turns_after`);
      for (const table of ['conversations', 'transcript_turns', 'tool_calls', 'node_visits']) {
        await db.run(`ALTER TABLE ${table} DROP COLUMN conversation_key`);
      }
      await db.run(`UPDATE convoduck_meta SET value = '11' WHERE key = 'schema_version'`);
      return { rows, turns, conversations, visits, conversations_, calls };
    });
    // what the data holds that the rules must agree on
    const count = (f: (r: Record<string, unknown>) => boolean) => stored.rows.filter(f).length;
    expect(count((r) => r.response_sec !== null)).toBeGreaterThan(100);
    expect(count((r) => r.repeat_of_seq !== null)).toBeGreaterThan(0);
    expect(count((r) => (r.agent_run as number | null) !== null && (r.agent_run as number) > 1)).toBeGreaterThan(0);
    expect(count((r) => r.words === null)).toBeLessThan(stored.rows.length);
    expect(stored.conversations.length).toBeGreaterThan(80);
    expect(stored.visits.filter((v) => (v.entry_no as number) > 1).length).toBeGreaterThan(0);

    // a writable opening upgrades the file (no sync: a detail fetched again would be stored by the other rule)
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
    });
    await Database.with(dbPath, async (db) => {
      expect(await db.all(FIGURES)).toEqual(stored.rows);
      expect(await db.all(CONVERSATION_FIGURES)).toEqual(stored.conversations);
      expect(await db.all(VISITS)).toEqual(stored.visits);
      expect(await db.all(CONVERSATIONS)).toEqual(stored.conversations_);
      expect(await db.all(CALLS)).toEqual(stored.calls);
      expect(await db.all(`SELECT * EXCLUDE (words, response_sec, repeat_of_seq, agent_run, turns_after) FROM transcript_turns ORDER BY conversation_id, seq`)).toEqual(stored.turns);
    }, { readOnly: true });
  }, 300_000);
});
