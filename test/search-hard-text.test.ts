// The index a sync keeps, batch by batch, is the one built from scratch over every stored turn,
// also when the turns hold text as speech-to-text and chat widgets produce it (emoji, RTL,
// invisible and control characters, strings cut mid-surrogate).
import { describe, expect, it } from 'vitest';
import { INDEX_ALL_SQL } from '../src/store/search-index/schema.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { copyFileSync } from 'node:fs';

const { simulator, tempDb } = scratch('search-hard-text', { rateLimit: 100_000 });

const INDEX = [
  `SELECT concat_ws(' ', term, conversation_id, seq, tf, turn_terms) AS r FROM search_terms ORDER BY r`,
  `SELECT concat_ws(' ', conversation_id, seq, terms) AS r FROM search_turns ORDER BY r`,
];

async function indexOf(dbPath: string): Promise<string[][]> {
  return Database.with(dbPath, async (db) => Promise.all(INDEX.map(async (sql) => (await db.all<{ r: string }>(sql)).map((x) => x.r))), { readOnly: true });
}

describe('the search index over hard text', () => {
  it('equals the one built from scratch', async () => {
    const sim = await simulator({ seed: 281, conversations: 120, realData: { text: 0.4 } });
    const dbPath = tempDb();
    const run = await runCli(['sync'], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath });
    expect(run.code, run.stderr).toBe(0);
    const kept = await indexOf(dbPath);
    const copy = `${dbPath}.scratch.duckdb`;
    copyFileSync(dbPath, copy);
    await Database.with(copy, (db) => db.transaction(() => db.run(INDEX_ALL_SQL)));
    expect(await indexOf(copy)).toEqual(kept);
    // the hard text is there
    const texts = await Database.with(dbPath, (db) => db.all<{ ascii: boolean; n: number }>(
      `SELECT regexp_matches(text, '^[\\x00-\\x7f]*$') AS ascii, count(*)::INTEGER AS n FROM transcript_turns WHERE text IS NOT NULL GROUP BY ALL ORDER BY ALL`,
    ), { readOnly: true });
    expect(texts.map((t) => t.ascii)).toEqual([false, true]);
    expect(kept[0]!.length).toBeGreaterThan(1000);
  }, 300_000);
});
