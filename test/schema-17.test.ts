// Schema 17: listing follows the server's timeline. A database of schema 16 holds a watermark set
// on this machine's clock; against a server whose clock runs two hours behind, that watermark lies
// past everything the server will write for two hours, and the conversations arriving meanwhile
// were never listed. Upgraded, the space resumes from the newest started_at the server had sent.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

const { simulator, tempDb } = scratch('schema-17', { rateLimit: 100_000 });

describe('schema 17', () => {
  it('moves a watermark set on this machine’s clock onto the server’s timeline, and the next sync finds what arrived', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(17);
    const sim = await simulator({ seed: 15, conversations: 150, clockSkewSeconds: -7200 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);

    // The file as schema 16 left it: the watermark at the run's start on this machine's clock, and
    // a watermark of a space with nothing stored.
    const newestStored = await Database.with(dbPath, async (db) => {
      const run = await db.one<{ started_at: string }>(`SELECT started_at::VARCHAR AS started_at FROM sync_runs`);
      await db.run(`DROP TABLE listing_watermarks`);
      await db.run(`CREATE TABLE listing_watermarks (space VARCHAR PRIMARY KEY, listed_to TIMESTAMPTZ NOT NULL)`);
      await db.run(`INSERT INTO listing_watermarks VALUES (?, ?::TIMESTAMPTZ), ('nothing-stored', ?::TIMESTAMPTZ)`, [sim.space, run!.started_at, run!.started_at]);
      await db.run(`ALTER TABLE sync_runs DROP COLUMN clock_skew_seconds; ALTER TABLE sync_runs DROP COLUMN newest_started_at`);
      await db.run(`UPDATE convoduck_meta SET value = '16' WHERE key = 'schema_version'`);
      return (await db.one<{ ms: number }>(`SELECT epoch_ms(max(started_at))::DOUBLE AS ms FROM conversations`))!.ms;
    });
    // The watermark lies two hours past the server's newest conversation.
    expect(newestStored).toBeLessThan(Date.now() - 3_600_000);

    const arrived = sim.addConversations(25, { open: false }).map((c) => c.id);
    sim.finishOpenConversations();

    // a writable opening upgrades the file
    await Database.with(dbPath, async (db) => {
      expect(await db.one(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`)).toEqual({ value: String(SCHEMA_VERSION) });
      const rows = await db.all<{ space: string; ms: number | null }>(
        `SELECT space, epoch_ms(listed_newest)::DOUBLE AS ms FROM listing_watermarks ORDER BY space`,
      );
      expect(rows).toEqual(
        [
          { space: sim.space, ms: newestStored },
          { space: 'nothing-stored', ms: null },
        ].sort((a, b) => a.space.localeCompare(b.space)),
      );
      expect(await db.all(`SELECT clock_skew_seconds, newest_started_at FROM sync_runs`)).toEqual([{ clock_skew_seconds: null, newest_started_at: null }]);
    });

    const next = await runCli(['sync', '--json'], env);
    expect(next.code, next.stderr).toBe(0);
    const stored = await Database.with(dbPath, async (db) => new Set((await db.all<{ id: string }>(`SELECT id FROM conversations`)).map((r) => r.id)), { readOnly: true });
    expect(arrived.filter((id) => !stored.has(id))).toEqual([]);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  }, 300_000);
});
