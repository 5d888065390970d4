// The kill soak, short: the writers whose kills are riskiest (a sync's open/commit/checkpoint/close
// per batch, forget's rewrite and rename of the file, the --redact-at-rest conversion, a schema
// migration that copies the largest tables) each SIGKILLed at a random moment against the
// simulator, and every file read whole (every column of every table) after each run. None may
// fail to open or read. `npm run soak -- --kills 300` covers every writer (docs/performance.md).
import { closeSync, copyFileSync, existsSync, openSync, readdirSync, renameSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readWhole } from '../src/soak/read-whole.js';
import { runSoak } from '../src/soak/soak.js';
import { Database } from '../src/store/database.js';
import { lastGoodPath } from '../src/store/last-good.js';
import type { WriterName } from '../src/soak/writers.js';
import { CLI, runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir, simulator, tempDb } = scratch('kill-soak', { rateLimit: 100_000 });

describe('kill soak', () => {
  it('leaves every file of every writer readable in full after SIGKILLs at random moments', async () => {
    const root = fileDir();
    const only: WriterName[] = ['sync', 'forget', 'redact-at-rest', 'migration'];
    const result = await runSoak({ kills: only.length, conversations: 40, seed: 4545, root, cli: CLI, only });

    expect(result.failures, JSON.stringify(result.failures, null, 2)).toEqual([]);
    expect(result.writers.map((w) => w.writer)).toEqual(only);
    for (const w of result.writers) {
      expect(w.kills, w.writer).toBeGreaterThanOrEqual(1);
      // after each run (killed or not) every file it writes was read whole
      expect(w.reads, w.writer).toBeGreaterThanOrEqual(w.runs);
      expect(w.unexpectedExits, w.writer).toEqual([]);
    }
    // a rewrite killed before its rename leaves its fresh file: the next rewrite removes it
    const leftovers = new Set(readdirSync(root).flatMap((f) => /^forget\.duckdb\.rewrite-(\d+)/.exec(f)?.[1] ?? []));
    expect(leftovers.size, 'rewrites whose files (and WALs) are left').toBeLessThanOrEqual(1);
  });

  it('keeps the file as the last sync left it, whole, and says how to put it back when the file is damaged', async () => {
    const sim = await simulator({ seed: 4546, conversations: 30 });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const copy = lastGoodPath(dbPath);
    expect((await runCli(['sync'], env)).code).toBe(0);
    expect(existsSync(copy)).toBe(true);
    expect(await readWhole(copy)).toMatchObject({ error: null });

    // an erasure leaves nothing of the conversation in the copy either
    const erased = sim.dataset.conversations[0]!.id;
    const forgot = await runCli(['forget', '--id', erased], env);
    expect(forgot.code, forgot.stderr).toBe(0);
    const inCopy = await Database.with(copy, (db) => db.all(`SELECT id FROM conversations WHERE id = ?`, [erased]), { readOnly: true });
    expect(inCopy).toEqual([]);

    // a torn metadata block, as a kill in DuckDB's write of it leaves: the file no longer opens
    const fd = openSync(dbPath, 'r+');
    writeSync(fd, Buffer.alloc(64, 7), 0, 64, 12_288 + 200);
    closeSync(fd);
    const damaged = await runCli(['status'], env);
    expect(damaged.code).not.toBe(0);
    expect(damaged.stderr).toMatch(/Corrupt database file.*the file is damaged; .*last-good is a whole copy of it from /);

    // put back as the message says: the next sync fetches what came after, and the erasure holds
    renameSync(dbPath, `${dbPath}.damaged`);
    copyFileSync(copy, dbPath);
    sim.addConversations(5, { open: false });
    const resumed = await runCli(['sync'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = await Database.with(dbPath, async (db) => (await db.all<{ id: string }>(`SELECT id FROM conversations`)).map((r) => r.id), { readOnly: true });
    expect(ids.length).toBe(sim.dataset.conversations.length - 1);
    expect(ids).not.toContain(erased);
  });
});
