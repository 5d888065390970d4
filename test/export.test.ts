// `convoduck export`: files written by DuckDB's COPY, read back with DuckDB and compared row
// for row (EXCEPT ALL both ways) with the tables they came from.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli/errors.js';
import { exportTables, MANIFEST_FILE, parseTableList, partitionStart } from '../src/exports/export.js';
import { Database } from '../src/store/database.js';
import { PUBLIC_TABLES } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { buildFixture } from './support/exports-fixture.js';

let dir: string;
let dbPath: string;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'convoduck-export-'));
  dbPath = join(dir, 'fixture.duckdb');
  await buildFixture(dbPath);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const outDir = () => join(dir, `out-${++n}`);
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const CHILD = ['transcript_turns', 'tool_calls', 'node_visits'];

/** Rows in `table` (restricted by `where`) missing from the files, and the other way round. */
async function differences(db: Database, table: string, files: string, where = 'true', extra = ''): Promise<[number, number]> {
  const source = `SELECT * FROM ${table} t WHERE ${where}`;
  const exported = `SELECT * ${extra} FROM ${files}`;
  const a = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${source} EXCEPT ALL ${exported})`);
  const b = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${exported} EXCEPT ALL ${source})`);
  return [a!.n, b!.n];
}

async function count(db: Database, sql: string): Promise<number> {
  return (await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM (${sql})`))!.n;
}

function walk(path: string): string[] {
  return statSync(path).isDirectory() ? [path, ...readdirSync(path).flatMap((e) => walk(join(path, e)))] : [path];
}

function readOnly<T>(work: (db: Database) => Promise<T>): Promise<T> {
  return Database.with(dbPath, work, { readOnly: true });
}

describe('export', () => {
  it('writes every public table as Parquet that reads back identical, owner-only', async () => {
    const out = outDir();
    const res = await runCli(['export', '--db', dbPath, '--out', out, '--json']);
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout) as { tables: { table: string; rows: number; files: string[] }[]; format: string };
    expect(summary.format).toBe('parquet');
    expect(summary.tables.map((t) => t.table)).toEqual([...PUBLIC_TABLES]);
    // One stderr line per table: rows and where.
    for (const t of summary.tables) {
      expect(res.stderr).toMatch(new RegExp(`${t.table}\\s+${t.rows} rows?\\s+→ ${out}/${t.table}/${t.table}\\.parquet`));
    }

    await readOnly(async (db) => {
      for (const t of summary.tables) {
        const file = join(out, t.table, `${t.table}.parquet`);
        expect(t.files).toEqual([`${t.table}/${t.table}.parquet`]);
        expect(t.rows).toBe(await count(db, `SELECT * FROM ${t.table}`));
        expect(await differences(db, t.table, `read_parquet(${lit(file)})`), t.table).toEqual([0, 0]);
        // Same columns, same order.
        const want = (await db.all<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE ${t.table})`)).map((r) => r.column_name);
        const got = (await db.all<{ column_name: string }>(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(${lit(file)}))`)).map(
          (r) => r.column_name,
        );
        expect(got).toEqual(want);
      }
      expect(summary.tables.find((t) => t.table === 'conversations')!.rows).toBe(150);
      // Timestamps keep their instant (UTC-adjusted Parquet timestamps).
      const types = await db.all<{ name: string; logical_type: string | null }>(
        `SELECT name, logical_type FROM parquet_schema(${lit(join(out, 'conversations', 'conversations.parquet'))}) WHERE name = 'started_at'`,
      );
      expect(types[0]!.logical_type).toMatch(/isAdjustedToUTC=1/);
    });

    // Personal data: the directory and everything in it are the owner's only.
    for (const path of walk(out)) {
      const mode = statSync(path).mode & 0o777;
      expect(mode, relative(out, path)).toBe(statSync(path).isDirectory() ? 0o700 : 0o600);
    }
    const manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as { generator: string; tables: Record<string, unknown> };
    expect(manifest.generator).toBe('convoduck');
    expect(Object.keys(manifest.tables)).toEqual([...PUBLIC_TABLES]);
  });

  it('partitions the conversation tables Hive-style by day, readable with hive_partitioning', async () => {
    const out = outDir();
    const summary = await exportTables(dbPath, { outDir: out, partitionBy: 'day' });
    await readOnly(async (db) => {
      for (const t of summary.tables) {
        if (t.table === 'conversations' || CHILD.includes(t.table)) {
          expect(t.partitionBy).toBe('day');
          const parts = readdirSync(join(out, t.table));
          expect(parts.length).toBeGreaterThan(3);
          for (const p of parts) expect(p).toMatch(/^day=\d{4}-\d{2}-\d{2}$/);
          const files = `read_parquet(${lit(join(out, t.table, '**', '*.parquet'))}, hive_partitioning = true)`;
          expect(await differences(db, t.table, files, 'true', 'EXCLUDE (day)'), t.table).toEqual([0, 0]);
          // Each row sits in the partition of its conversation's start day.
          const key = t.table === 'conversations' ? 'id' : 'conversation_id';
          const misplaced = await count(
            db,
            `SELECT * FROM ${files} f JOIN conversations c ON c.id = f.${key}
             WHERE f.day::VARCHAR <> strftime(c.started_at, '%Y-%m-%d')`,
          );
          expect(misplaced, t.table).toBe(0);
        } else {
          expect(t.partitionBy).toBeNull();
          expect(await differences(db, t.table, `read_parquet(${lit(join(out, t.table, `${t.table}.parquet`))})`)).toEqual([0, 0]);
        }
      }
    });
  });

  it('--since keeps only conversations started since then (dimension and sync tables whole)', async () => {
    const out = outDir();
    const since = new Date('2026-11-03T15:30:00Z');
    const res = await runCli(['export', '--db', dbPath, '--out', out, '--since', since.toISOString(), '--json']);
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout) as { tables: { table: string; rows: number; filtered: boolean }[] };
    const cutoff = `'${since.toISOString()}'::TIMESTAMPTZ`;
    await readOnly(async (db) => {
      for (const t of summary.tables) {
        const files = `read_parquet(${lit(join(out, t.table, `${t.table}.parquet`))})`;
        const where =
          t.table === 'conversations'
            ? `t.started_at >= ${cutoff}`
            : CHILD.includes(t.table)
              ? `t.conversation_id IN (SELECT id FROM conversations WHERE started_at >= ${cutoff})`
              : 'true';
        expect(t.filtered).toBe(where !== 'true');
        expect(await differences(db, t.table, files, where), t.table).toEqual([0, 0]);
        expect(t.rows).toBe(await count(db, `SELECT * FROM ${t.table} t WHERE ${where}`));
      }
      const total = await count(db, 'SELECT * FROM conversations');
      const kept = summary.tables.find((t) => t.table === 'conversations')!.rows;
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(total);
    });
  });

  it('an incremental partitioned export replaces only its (whole) partitions and keeps the rest', async () => {
    const copy = join(dir, 'incremental.duckdb');
    copyFileSync(dbPath, copy);
    const out = outDir();
    await exportTables(copy, { outDir: out, partitionBy: 'day' });
    const before = readdirSync(join(out, 'tool_calls')).sort();
    const oldDay = join(out, 'transcript_turns', 'day=2026-11-01', 'data_0.parquet');
    const oldBytes = readFileSync(oldDay);

    // The recent days change (as a re-fetched detail would change them), older ones do not.
    await Database.with(copy, async (db) => {
      await db.run(`UPDATE transcript_turns SET text = text || ' (edited)'
                    WHERE conversation_id IN (SELECT id FROM conversations WHERE started_at >= '2026-11-05')`);
      await db.run(`DELETE FROM tool_calls
                    WHERE conversation_id IN (SELECT id FROM conversations WHERE started_at >= '2026-11-05T12:00:00Z')`);
    });
    const since = new Date('2026-11-05T13:00:00Z');
    const second = await exportTables(copy, { outDir: out, partitionBy: 'day', since });
    expect(second.since).toBe(partitionStart(since, 'day').toISOString()); // rounded down to the day
    expect(second.since).toBe('2026-11-05T00:00:00.000Z');
    const turns = second.tables.find((t) => t.table === 'transcript_turns')!;
    expect(turns.keptPartitions).toBeGreaterThan(0);
    // Tool calls of 2026-11-06 are all gone: so is their partition. Days before --since stay.
    expect(before).toContain('day=2026-11-06');
    expect(readdirSync(join(out, 'tool_calls')).sort()).toEqual(
      before.filter((p) => p !== 'day=2026-11-06'),
    );
    expect(readFileSync(oldDay).equals(oldBytes)).toBe(true);

    // The files now hold exactly the changed tables: nothing stale, nothing twice.
    await Database.with(
      copy,
      async (db) => {
        for (const table of ['conversations', ...CHILD]) {
          const files = `read_parquet(${lit(join(out, table, '**', '*.parquet'))}, hive_partitioning = true)`;
          expect(await differences(db, table, files, 'true', 'EXCLUDE (day)'), table).toEqual([0, 0]);
        }
        const written = await count(
          db,
          `SELECT * FROM transcript_turns t JOIN conversations c ON c.id = t.conversation_id WHERE c.started_at >= '2026-11-05T00:00:00Z'`,
        );
        expect(turns.rows).toBe(written);
      },
      { readOnly: true },
    );
    // No staging left behind.
    expect(readdirSync(out).filter((e) => e.startsWith('.'))).toEqual([]);
  });

  it('writes CSV (by month) that DuckDB reads back identical', async () => {
    const out = outDir();
    const res = await runCli([
      'export',
      '--db',
      dbPath,
      '--out',
      out,
      '--format',
      'csv',
      '--partition-by',
      'month',
      '--tables',
      'conversations,transcript_turns,tool_calls,agents',
    ]);
    expect(res.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['agents', 'conversations', MANIFEST_FILE, 'tool_calls', 'transcript_turns']);
    expect(readdirSync(join(out, 'conversations')).sort()).toEqual(['month=2026-10', 'month=2026-11']);
    const header = readFileSync(join(out, 'tool_calls', 'month=2026-11', 'data_0.csv'), 'utf8').split('\n')[0];
    expect(header).toBe('conversation_id,seq,called_at,tool_id,slug,node_key,status,input_redacted,output_redacted');
    await readOnly(async (db) => {
      for (const table of ['conversations', 'transcript_turns', 'tool_calls', 'agents']) {
        // Read with the table's own column types (CSV has none), JSON as text.
        const columns = await db.all<{ column_name: string; data_type: string }>(
          `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index`,
          [table],
        );
        const types = `{${columns
          .map((c) => `${lit(c.column_name)}: ${lit(c.data_type === 'JSON' ? 'VARCHAR' : c.data_type)}`)
          .join(', ')}}`;
        const path = table === 'agents' ? join(out, table, 'agents.csv') : join(out, table, '**', '*.csv');
        const files = `read_csv(${lit(path)}, header = true, delim = ',', quote = '"', escape = '"', columns = ${types}${table === 'agents' ? '' : ', hive_partitioning = true'})`;
        expect(await differences(db, table, files, 'true', table === 'agents' ? '' : 'EXCLUDE (month)'), table).toEqual([0, 0]);
      }
      // Timestamps in CSV are ISO 8601 UTC.
      const first = readFileSync(join(out, 'conversations', 'month=2026-11', 'data_0.csv'), 'utf8').split('\n')[1]!;
      expect(first).toMatch(/,\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z,/);
    });
    for (const path of walk(out)) {
      expect(statSync(path).mode & 0o777).toBe(statSync(path).isDirectory() ? 0o700 : 0o600);
    }
  });

  it('refuses a directory that is not empty and not an earlier export; bad flags exit 2', async () => {
    const foreign = outDir();
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'notes.txt'), 'mine');
    const res = await runCli(['export', '--db', dbPath, '--out', foreign]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/^convoduck: --out .* is not empty and holds no earlier convoduck export.*\n$/);
    expect(readdirSync(foreign)).toEqual(['notes.txt']);

    await expect(exportTables(dbPath, { outDir: join(foreign, 'notes.txt') })).rejects.toThrow(/is a file/);
    expect(() => parseTableList('conversations,bogus')).toThrow(UsageError);
    expect(parseTableList('tools, conversations')).toEqual(['conversations', 'tools']);
    const missing = await runCli(['export', '--db', dbPath]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('convoduck: --out DIR is required: the directory to write the files to\n');
  });
});
