// DuckDB's file lock keeps other processes out, not this one: a second instance on a file that an
// instance of the same process writes opens without a word, and its checkpoint overwrites the
// other's commits. convoduck refuses that opening loudly instead of losing writes.
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('open-once');

describe('one process, one writing instance per file', () => {
  it('refuses a second opening beside a writing one, and loses nothing', async () => {
    const dbPath = tempDb();
    const writer = await Database.open(dbPath);
    await writer.run(`CREATE TABLE t AS SELECT range AS i FROM range(1000)`);
    await expect(Database.open(dbPath)).rejects.toThrow(/already open for writing in this process/);
    await expect(Database.open(dbPath, { readOnly: true })).rejects.toThrow(/already open for writing in this process/);
    await writer.run(`INSERT INTO t SELECT range + 1000 FROM range(1000)`);
    writer.close();

    const again = await Database.with(dbPath, (db) => db.one<{ n: number; d: number }>(`SELECT count(*)::INTEGER AS n, count(DISTINCT i)::INTEGER AS d FROM t`));
    expect(again).toEqual({ n: 2000, d: 2000 });
  });

  it('lets readers share the file, and a writer in once they are gone', async () => {
    const dbPath = tempDb();
    (await Database.open(dbPath)).close();
    const a = await Database.open(dbPath, { readOnly: true });
    const b = await Database.open(dbPath, { readOnly: true });
    await expect(Database.open(dbPath)).rejects.toThrow(/already open for reading in this process/);
    a.close();
    await expect(Database.open(dbPath)).rejects.toThrow(/already open for reading/);
    b.close();
    (await Database.open(dbPath)).close();
  });
});
