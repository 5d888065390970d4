// Schema 20: whether a stored detail carries a recording link is a column, decided as the detail is
// written. A database of schema 19 (its view parsing every body on read) or 18 (no view yet) gets
// the column filled from its bodies by the write path's own rule: a body DuckDB's JSON reader
// refuses (a string cut mid-surrogate, text that is not JSON) or one kept in parts is read as the
// crawl read it, and the reads that choked on it run.
import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { fillRecordingLinks } from '../src/store/load-facts.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('schema-20', { rateLimit: 100_000 });

/** The view schema 19 made: it parsed each body on read. */
const VIEW_19 = `CREATE OR REPLACE VIEW conversation_load_state AS
SELECT r.id AS conversation_id, r.space, r.fetched_at AS detail_fetched_at, r.is_final,
       json_extract_string(r.body, '$.data.recording_url') IS NOT NULL AS has_recording_link
FROM raw_conversations r`;

const links = (path: string) =>
  Database.with(path, (db) => db.all<{ id: string; link: boolean }>(`SELECT id, has_recording_link AS link FROM raw_conversations ORDER BY id`), { readOnly: true });

describe('schema 20', () => {
  it('fills has_recording_link of a file of schema 19 or 18 from its bodies, as the write path decides it, also after a copy', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(20);
    const sim = await simulator({ seed: 2020, conversations: 30 });
    // voice conversations with a link: one with strings cut mid-surrogate, one kept in parts, one not JSON
    const voice = sim.dataset.records.filter((r) => !r.open && r.summary.outcome !== null && sim.dataset.detail(r.id)?.recording_url).map((r) => r.id);
    const [surrogate, parted, notJson] = voice;
    sim.realData.set(surrogate!, { text: true });
    sim.realData.set(parted!, { long: { turns: 1_000 } });
    sim.realData.set(notJson!, { broken: 'invalid_json' });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey };
    const synced = await runCli(['sync', '--db', dbPath], env);
    expect(synced.code, synced.stderr).toBe(0);

    const written = await links(dbPath);
    const linked = written.filter((r) => r.link).map((r) => r.id);
    expect(linked).toContain(surrogate);
    expect(linked).toContain(parted);
    expect(linked).not.toContain(notJson);
    expect(linked.length).toBe(sim.dataset.records.filter((r) => sim.dataset.detail(r.id)?.recording_url).length - 1);
    expect(written.filter((r) => r.link === null)).toEqual([]);

    const older = { 19: join(dirname(dbPath), 'v19.duckdb'), 18: join(dirname(dbPath), 'v18.duckdb') };
    for (const [version, path] of Object.entries(older)) {
      copyFileSync(dbPath, path);
      await Database.with(path, async (db) => {
        await db.run(`DROP VIEW conversation_load_state`);
        await db.run(`ALTER TABLE raw_conversations DROP COLUMN has_recording_link`);
        if (version === '19') {
          await db.run(VIEW_19);
          // as schema 19 left it, a read of the load state fails on the bodies DuckDB's reader refuses
          await expect(db.all(`SELECT count(*) FROM conversation_load_state WHERE has_recording_link`)).rejects.toThrow(/Malformed JSON/);
        }
        await db.run(`UPDATE convoduck_meta SET value = '${version}' WHERE key = 'schema_version'`);
      });
    }
    for (const path of Object.values(older)) {
      // a read upgrades the file, then reads it
      const report = await runCli(['report', 'coverage', '--db', path, '--format', 'json', '--out', join(dirname(path), 'out')], env);
      expect(report.code, report.stderr).toBe(0);
      expect(await links(path)).toEqual(written);
    }
    // after an earlier step copied the table in the same transaction (its rows then have rowids
    // far past the table's end), as an upgrade from before schema 7 does
    const copied = join(dirname(dbPath), 'copied.duckdb');
    copyFileSync(dbPath, copied);
    await Database.with(copied, (db) =>
      db.transaction(async () => {
        await db.run(`CREATE TABLE raw_copy AS SELECT * EXCLUDE (has_recording_link) FROM raw_conversations`);
        await db.run(`DROP TABLE raw_conversations; ALTER TABLE raw_copy RENAME TO raw_conversations`);
        await fillRecordingLinks(db);
      }),
    );
    expect(await links(copied)).toEqual(written);

    // rebuild decides them again from the bodies, the same
    await Database.with(older[19], (db) => db.run(`UPDATE raw_conversations SET has_recording_link = NULL`));
    const rebuilt = await runCli(['rebuild', '--db', older[19]], env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(await links(older[19])).toEqual(written);
  }, 120_000);
});
