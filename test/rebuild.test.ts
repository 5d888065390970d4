// `convoduck rebuild` re-derives every table from the raw responses without a single request.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../src/simulator/index.js';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const dir = scratch('rebuild').fileDir();

describe('rebuild', () => {
  it('restores damaged derived tables from the raw responses with the API gone', async () => {
    const sim = await startSimulator({ seed: 81, conversations: 600, rateLimit: 100_000 });
    const data = { conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) };
    const dbPath = join(dir, 'rebuild.duckdb');
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    await sim.close(); // nothing to ask from here on

    await Database.with(dbPath, async (db) => {
      await db.run(`UPDATE raw_conversations SET is_final = NOT is_final`);
      await db.run(`DELETE FROM transcript_turns WHERE seq % 2 = 0`);
      await db.run(`DELETE FROM node_visits`);
      await db.run(`UPDATE conversations SET outcome = 'tampered'`);
      await db.run(`INSERT INTO tool_calls SELECT * FROM tool_calls LIMIT 5`);
    });
    const result = await runCli(['rebuild', '--db', dbPath]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/rebuilt .* 600 conversations/);
    await expectStoreMatches(dbPath, data);
    const wrong = await Database.with(dbPath, (db) =>
      db.one<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM raw_conversations
         WHERE is_final IS DISTINCT FROM ((body->>'$.data.ended_at') IS NOT NULL AND (body->>'$.data.outcome') IS NOT NULL)`,
      ),
    );
    expect(wrong?.n).toBe(0);
  });
});

describe('schema upgrade', () => {
  it('brings a database written by the first schema up to date on the next read, nothing lost', async () => {
    const sim = await startSimulator({ seed: 82, conversations: 300, rateLimit: 100_000 });
    const data = { conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) };
    const dbPath = join(dir, 'upgrade.duckdb');
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    const statusBefore = await runCli(['status', '--db', dbPath, '--json']);
    expect(statusBefore.code, statusBefore.stderr).toBe(0);

    // What schema 1 looked like: no is_final column on raw_conversations.
    await Database.with(dbPath, async (db) => {
      await db.run(`ALTER TABLE raw_conversations DROP COLUMN is_final`);
      await db.run(`UPDATE convoduck_meta SET value = '1' WHERE key = 'schema_version'`);
    });

    // A read-only command upgrades the file first, then reads it as before.
    const statusAfter = await runCli(['status', '--db', dbPath, '--json']);
    expect(statusAfter.code, statusAfter.stderr).toBe(0);
    const pick = (out: string) => {
      const s = JSON.parse(out) as { details: unknown; conversations: unknown };
      return { details: s.details, conversations: s.conversations };
    };
    expect(pick(statusAfter.stdout)).toEqual(pick(statusBefore.stdout));
    const version = await Database.with(dbPath, (db) =>
      db.one<{ value: string; pending: number }>(
        `SELECT (SELECT value FROM convoduck_meta WHERE key = 'schema_version') AS value,
                (SELECT count(*) FILTER (WHERE NOT is_final)::INTEGER FROM raw_conversations) AS pending`,
      ),
    );
    expect(version?.value).toBe(String(SCHEMA_VERSION));
    // the open conversations' details are still known to need fetching again
    const open = sim.dataset.openRecords().length;
    expect(open).toBeGreaterThan(0);
    expect(version?.pending).toBe(open);

    expect(sim.finishOpenConversations()).toBe(open);
    await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: data.detail });
    await sim.close();
  });
});
