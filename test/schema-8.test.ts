// A database of schema 7 kept its listing gaps only as sentences in sync_errors (two wordings over
// time). Opening it upgrades it: each gap becomes a row of listing_gaps, and `status` shows the
// same gaps as before. A listing error that is not a gap stays an error only.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import type { StatusReport } from '../src/status/report.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('schema-8', { rateLimit: 100_000 });

const GAP_COLUMNS = `run_id, space, window_from, window_to, server_count, served`;

describe('schema 8', () => {
  it('turns the gap sentences of a schema 7 database, in both wordings, into listing_gaps rows; status shows the same gaps', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(8);
    const sim = await simulator({ seed: 81, conversations: 300 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    expect((await runCli(['sync'], env)).code).toBe(0);
    // Conversations the server counts but never lists: run 2 finds its window short.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    sim.addConversations(30, { open: false });
    sim.setOptions({ hiddenFromLists: 40 });
    expect((await runCli(['sync'], env)).code).toBe(1);

    const status = async () => {
      const run = await runCli(['status', '--db', dbPath, '--json']);
      expect(run.code, run.stderr).toBe(0);
      return { report: JSON.parse(run.stdout) as StatusReport, stderr: run.stderr };
    };
    const { report: before } = await status();
    expect(before.listingGaps.map((g) => g.runId)).toEqual([2]);

    // What schema 7 held: no listing_gaps, only the sentences; plus a gap of another space in the
    // wording of earlier versions, and a listing error that is no gap.
    const recorded = await Database.with(dbPath, async (db) => {
      const rows = await db.all(`SELECT ${GAP_COLUMNS} FROM listing_gaps ORDER BY ALL`);
      expect(rows.length).toBeGreaterThan(0);
      await db.run(`DROP TABLE listing_gaps`);
      await db.run(
        `INSERT INTO sync_runs (run_id, started_at, ended_at, status, space, window_from, window_to)
         VALUES (3, '2026-11-03T00:00:00Z', '2026-11-03T00:01:00Z', 'errors', 'other-space', NULL, '2026-11-02T00:00:00Z')`,
      );
      await db.run(
        `INSERT INTO sync_errors VALUES
           (3, '2026-11-03T00:00:30Z', 'listing', NULL, NULL, 'listing beginning..2026-11-01T00:00:00.000Z returned 3 of 5 conversations'),
           (3, '2026-11-03T00:00:31Z', 'listing', NULL, NULL, 'listing 2026-11-01T00:00:00.000Z..2026-11-02T00:00:00.000Z returned 7 of 8 conversations'),
           (3, '2026-11-03T00:00:40Z', 'listing', NULL, 500, 'GET /v1/conversations?page=2: HTTP 500 (gave up after 7 attempts)')`,
      );
      await db.run(`UPDATE convoduck_meta SET value = '7' WHERE key = 'schema_version'`);
      return rows;
    });

    const { report: after, stderr } = await status();
    expect(stderr).toContain(`convoduck: upgrading ${dbPath} from schema 7 to ${SCHEMA_VERSION}, once`);
    expect(after.listingGaps).toEqual([
      {
        runId: 3,
        from: null,
        to: '2026-11-02T00:00:00Z',
        missing: 3,
        counted: 13,
        served: 10,
        windows: 2,
        nextSyncRelists: true,
      },
      ...before.listingGaps,
    ]);
    await Database.with(dbPath, async (db) => {
      const rows = await db.all(`SELECT ${GAP_COLUMNS} FROM listing_gaps WHERE run_id = 2 ORDER BY ALL`);
      expect(rows).toEqual(recorded);
      expect(await db.one(`SELECT count(*)::INTEGER AS n FROM listing_gaps WHERE run_id = 3`)).toEqual({ n: 2 });
    });
  }, 300_000);
});
