// `convoduck export`: files written by DuckDB's COPY, read back with DuckDB and compared row
// for row (EXCEPT ALL both ways) with the tables they came from.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { InvalidInputError } from '../src/shared/errors.js';
import { exportTables, MANIFEST_FILE, parseTableList } from '../src/exports/export.js';
import { Database } from '../src/store/database.js';
import { PUBLIC_TABLES } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { copyFixture } from './support/exports-fixture.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('export');

let dir: string;
let dbPath: string;
let n = 0;

beforeAll(() => {
  dir = fileDir();
  dbPath = join(dir, 'fixture.duckdb');
  copyFixture(inject('exportsFixture'), dbPath);
});

const outDir = () => join(dir, `out-${++n}`);
const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
const CHILD = ['transcript_turns', 'tool_calls', 'node_visits', 'detail_drift', 'conversation_load_state'];

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
      expect(res.stderr).toMatch(new RegExp(`^  ${t.table}\\s+${t.rows.toLocaleString('en-US')} rows?  whole  → ${out}/${t.table}/${t.table}\\.parquet$`, 'm'));
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
          // detail_drift holds the fixture's one set-aside detail
          expect(parts.length).toBeGreaterThan(t.table === 'detail_drift' ? 0 : 3);
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
    expect(second.since).toBe('2026-11-05T00:00:00Z'); // rounded down to the day
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
    expect(header).toBe('conversation_id,seq,called_at,tool_id,slug,node_key,status,input_redacted,output_redacted,conversation_key');
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
      // Timestamps in CSV are ISO 8601 UTC, a fraction only when there is one.
      const first = readFileSync(join(out, 'conversations', 'month=2026-11', 'data_0.csv'), 'utf8').split('\n')[1]!;
      expect(first).toMatch(/,\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6})?Z,/);
      expect(first).not.toMatch(/\.000(000)?Z/);
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
    expect(() => parseTableList('conversations,bogus')).toThrow(InvalidInputError);
    expect(parseTableList('tools, conversations')).toEqual(['conversations', 'tools']);
    const missing = await runCli(['export', '--db', dbPath]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('convoduck: --out DIR is required: the directory to write the files to\n');
  });

  it('waits for another export’s first write into the folder: its tables moved in, its manifest not yet written', async () => {
    const first = outDir();
    expect((await runCli(['export', '--db', dbPath, '--out', first])).code).toBe(0);
    // another machine's export half-way through its first write: its tables and staging directory, no manifest
    const shared = outDir();
    const staging = join(shared, '.convoduck-staging-other-host-1');
    mkdirSync(staging, { recursive: true });
    for (const e of readdirSync(first)) if (e !== MANIFEST_FILE) renameSync(join(first, e), join(shared, e));
    const finishing = setTimeout(() => {
      copyFileSync(join(first, MANIFEST_FILE), join(staging, MANIFEST_FILE));
      renameSync(join(staging, MANIFEST_FILE), join(shared, MANIFEST_FILE));
      rmSync(staging, { recursive: true });
    }, 1_500);
    const res = await runCli(['export', '--db', dbPath, '--out', shared]);
    clearTimeout(finishing);
    expect(res.code, res.stderr).toBe(0);
    expect(await exportedRows(shared, 'conversations')).toBeGreaterThan(0);
  });
});

/** Every file and directory under `root` with a hash of its bytes (directories: their mode). */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of walk(root)) {
    const stat = statSync(path);
    out[relative(root, path)] = stat.isDirectory()
      ? `dir ${stat.mode & 0o777}`
      : `${stat.mode & 0o777} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return out;
}

/** Rows of `table` readable from the export, partitioned or not. */
function exportedRows(out: string, table: string, format: 'parquet' | 'csv' = 'parquet'): Promise<number> {
  const glob = lit(join(out, table, '**', `*.${format}`));
  const reader = format === 'parquet' ? `read_parquet(${glob}, hive_partitioning = true)` : `read_csv(${glob}, hive_partitioning = true)`;
  return readOnly((db) => count(db, `SELECT * FROM ${reader}`));
}

/** The CLI's last stderr line (a rounding notice for --since may come first). */
const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1);

describe('export never destroys what it does not rewrite', () => {
  it('refuses an unpartitioned --since export into a day-partitioned folder, leaving it byte-identical', async () => {
    await exportTables(dbPath, { outDir: join(dir, 'lake-flat-since'), partitionBy: 'day' });
    const before = snapshot(join(dir, 'lake-flat-since'));
    const total = await exportedRows(join(dir, 'lake-flat-since'), 'conversations');
    expect(total).toBe(150);

    const res = await runCli(['export', '--db', dbPath, '--out', './lake-flat-since', '--since', '2d'], {}, dir);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(
      'convoduck: ./lake-flat-since holds a day-partitioned export — pass --partition-by day, or export into a new folder\n',
    );
    expect(snapshot(join(dir, 'lake-flat-since'))).toEqual(before);
    expect(await exportedRows(join(dir, 'lake-flat-since'), 'conversations')).toBe(total);
  });

  it('refuses switching day partitions to month with --since, leaving every day partition', async () => {
    const out = outDir();
    await exportTables(dbPath, { outDir: out, partitionBy: 'day' });
    const before = snapshot(out);
    const res = await runCli(['export', '--db', dbPath, '--out', out, '--partition-by', 'month', '--since', '2026-11-05T00:00:00Z']);
    expect(res.code).toBe(2);
    expect(lastLine(res.stderr)).toBe(
      `convoduck: ${out} holds a day-partitioned export — pass --partition-by day, or export into a new folder`,
    );
    expect(snapshot(out)).toEqual(before);
    for (const table of ['conversations', ...CHILD]) {
      expect(await exportedRows(out, table), table).toBe(await readOnly((db) => count(db, `SELECT * FROM ${table}`)));
    }
  });

  it('refuses the other layout switches: flat to partitioned, Parquet to CSV (even without --since)', async () => {
    const out = outDir();
    await exportTables(dbPath, { outDir: out });
    const before = snapshot(out);
    const partitioned = await runCli(['export', '--db', dbPath, '--out', out, '--partition-by', 'day']);
    expect(partitioned.code).toBe(2);
    expect(partitioned.stderr).toBe(
      `convoduck: ${out} holds an unpartitioned export — leave out --partition-by, or export into a new folder\n`,
    );
    const csv = await runCli(['export', '--db', dbPath, '--out', out, '--format', 'csv', '--tables', 'agents']);
    expect(csv.code).toBe(2);
    expect(csv.stderr).toBe(`convoduck: ${out} holds a Parquet export — pass --format parquet, or export into a new folder\n`);
    expect(snapshot(out)).toEqual(before);

    // A folder already mixed (as earlier versions could leave it) takes no further export.
    const other = outDir();
    await exportTables(dbPath, { outDir: other, partitionBy: 'day', tables: ['tool_calls'] });
    rmSync(join(out, 'tool_calls'), { recursive: true });
    renameSync(join(other, 'tool_calls'), join(out, 'tool_calls'));
    const mixedBefore = snapshot(out);
    const mixed = await runCli(['export', '--db', dbPath, '--out', out]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/^convoduck: .* holds tables of different layouts \(.*day-partitioned.*\) — export into a new folder\n$/);
    expect(snapshot(out)).toEqual(mixedBefore);
  });

  it('refuses an unpartitioned --since export that would shrink an earlier file; a wider --since may replace it', async () => {
    const out = outDir();
    await exportTables(dbPath, { outDir: out });
    const before = snapshot(out);
    const res = await runCli(['export', '--db', dbPath, '--out', out, '--since', '2026-11-05T00:00:00Z']);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^convoduck: .* holds earlier rows of conversations, transcript_turns, tool_calls, node_visits, detail_drift, conversation_load_state that --since without --partition-by would drop .* — export without --since, or use --partition-by day\|month with --since in a new folder for incremental exports\n$/,
    );
    expect(snapshot(out)).toEqual(before);
    expect(await exportedRows(out, 'conversations')).toBe(150);

    // Files that hold only rows since 2026-11-04 may be replaced by rows since 2026-11-03
    // (a superset), not by rows since 2026-11-05.
    const recent = outDir();
    await exportTables(dbPath, { outDir: recent, since: new Date('2026-11-04T00:00:00Z') });
    const wider = await runCli(['export', '--db', dbPath, '--out', recent, '--since', '2026-11-03T00:00:00Z']);
    expect(wider.code).toBe(0);
    const since3 = await readOnly((db) => count(db, `SELECT * FROM conversations WHERE started_at >= '2026-11-03T00:00:00Z'`));
    expect(await exportedRows(recent, 'conversations')).toBe(since3);
    const narrower = await runCli(['export', '--db', dbPath, '--out', recent, '--since', '2026-11-05T00:00:00Z']);
    expect(narrower.code).toBe(2);
    expect(await exportedRows(recent, 'conversations')).toBe(since3);
  });

  it('reads a manifest without the layout (version 1): infers it from the folder and keeps older partitions', async () => {
    const out = outDir();
    await exportTables(dbPath, { outDir: out, partitionBy: 'day', now: () => new Date('2026-11-06T00:00:00Z') });
    // The manifest as earlier versions wrote it: per-table format and partitioning only.
    const path = join(out, MANIFEST_FILE);
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> & { tables: Record<string, Record<string, unknown>> };
    delete manifest.layout;
    manifest.manifest_version = 1;
    for (const table of Object.values(manifest.tables)) delete table.partitions;
    writeFileSync(path, JSON.stringify(manifest));

    const before = snapshot(out);
    const flat = await runCli(['export', '--db', dbPath, '--out', out, '--since', '2026-11-05T00:00:00Z']);
    expect(flat.code).toBe(2);
    expect(flat.stderr).toMatch(/holds a day-partitioned export — pass --partition-by day/);
    expect(snapshot(out)).toEqual(before);

    await exportTables(dbPath, {
      outDir: out,
      partitionBy: 'day',
      since: new Date('2026-11-05T00:00:00Z'),
      now: () => new Date('2026-11-07T00:00:00Z'),
    });
    expect(await exportedRows(out, 'conversations')).toBe(150);
    const next = JSON.parse(readFileSync(path, 'utf8')) as {
      manifest_version: number;
      layout: unknown;
      tables: Record<string, { partitions: Record<string, { started_from: string | null; started_before: string | null; exported_at: string | null }> }>;
    };
    expect(next.manifest_version).toBe(2);
    expect(next.layout).toEqual({ format: 'parquet', partition_by: 'day' });
    const parts = next.tables.tool_calls!.partitions;
    expect(Object.keys(parts).sort()).toEqual(readdirSync(join(out, 'tool_calls')).sort());
    // Rewritten partitions carry this export's time; kept ones the earlier table's.
    expect(parts['day=2026-11-05']).toEqual({
      started_from: '2026-11-05T00:00:00Z',
      started_before: '2026-11-06T00:00:00Z',
      exported_at: '2026-11-07T00:00:00Z',
    });
    expect(parts['day=2026-11-01']).toEqual({
      started_from: '2026-11-01T00:00:00Z',
      started_before: '2026-11-02T00:00:00Z',
      exported_at: '2026-11-06T00:00:00Z',
    });
  });
});
