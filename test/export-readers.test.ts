// Every exported table reads back, with its columns and rows, whatever it holds: a healthy sync
// leaves sync_errors empty, and an export of a table without rows must still be a dataset that
// DuckDB (hive_partitioning) and a second, pure-JS Parquet reader (hyparquet) open.
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { DERIVED_CONVERSATION_TABLES, PUBLIC_TABLES } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('export-readers', { rateLimit: 100_000 });
/** Tables partitioned by their conversation's start; the first four hold rows after any sync of the simulator. */
const CONVERSATION_TABLES: readonly string[] = [...DERIVED_CONVERSATION_TABLES, 'conversation_load_state'];
const WITH_ROWS = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits'];

interface Shape {
  columns: string[];
  rows: number;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const path = join(dir, e);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** What the database holds, per table: its columns and rows. */
async function stored(dbPath: string): Promise<Record<string, Shape>> {
  return Database.with(
    dbPath,
    async (db) => {
      const out: Record<string, Shape> = {};
      for (const t of PUBLIC_TABLES) {
        const cols = await db.all<{ column_name: string }>(
          `SELECT column_name FROM duckdb_columns() WHERE table_name = ? AND schema_name = 'main' ORDER BY column_index`,
          [t],
        );
        const n = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM ${t}`);
        out[t] = { columns: cols.map((c) => c.column_name), rows: n!.n };
      }
      return out;
    },
    { readOnly: true },
  );
}

/** The columns a reader of the exported table should see: the table's, plus the partition keys of its path. */
function expectedColumns(table: string, shape: Shape, partitionBy: string | null): string[] {
  const keys = (partitionBy ?? '').split(',').filter(Boolean);
  const extra = keys.filter((k) => (k === 'space' ? true : CONVERSATION_TABLES.includes(table)));
  return [...new Set([...shape.columns, ...extra])].sort();
}

async function readWithDuckDB(tableDir: string): Promise<Shape> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    const source = `read_parquet('${tableDir}/**/*.parquet', hive_partitioning = true)`;
    const described = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJson();
    const n = (await conn.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ${source}`)).getRowObjectsJson();
    return { columns: described.map((r) => String(r.column_name)).sort(), rows: Number(n[0]!.n) };
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** hyparquet reads each file; the partition keys come from the `key=value/` directories of its path, as Hive readers take them. */
async function readWithHyparquet(tableDir: string): Promise<Shape> {
  const columns = new Set<string>();
  let rows = 0;
  const files = filesUnder(tableDir).filter((f) => f.endsWith('.parquet'));
  for (const path of files) {
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    const root = metadata.schema[0]!;
    for (const el of metadata.schema.slice(1, 1 + (root.num_children ?? 0))) columns.add(el.name);
    // top-level names only: the file's schema is flat, so its children follow the root in order
    const read = await parquetReadObjects({ file, metadata });
    expect(read.length).toBe(Number(metadata.num_rows));
    rows += read.length;
    for (const dir of relative(tableDir, path).split('/').slice(0, -1)) columns.add(dir.split('=')[0]!);
  }
  expect(files.length, `${tableDir} holds a Parquet file`).toBeGreaterThan(0);
  return { columns: [...columns].sort(), rows };
}

describe('every exported table reads back with its schema, also when it is empty', () => {
  it('flat and partitioned exports, read by DuckDB and by hyparquet', async () => {
    const sim = await simulator({ seed: 291, conversations: 25 });
    const db = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db };
    const sync = await runCli(['sync'], env);
    expect(sync.code, sync.stderr).toBe(0);
    const tables = await stored(db);
    // a healthy sync: sync_errors is the empty table
    expect(tables.sync_errors!.rows).toBe(0);
    expect(tables.conversations!.rows).toBe(25);

    for (const partitionBy of [null, 'day', 'month', 'space', 'space,day']) {
      const out = join(db, '..', `out-${partitionBy ?? 'flat'}`);
      const res = await runCli(['export', '--db', db, '--out', out, ...(partitionBy ? ['--partition-by', partitionBy] : [])]);
      expect(res.code, res.stderr).toBe(0);
      for (const t of PUBLIC_TABLES) {
        const want = { columns: expectedColumns(t, tables[t]!, partitionBy), rows: tables[t]!.rows };
        const label = `${t} (${partitionBy ?? 'flat'})`;
        expect(await readWithDuckDB(join(out, t)), label).toEqual(want);
        expect(await readWithHyparquet(join(out, t)), label).toEqual(want);
      }
    }
  }, 300_000);

  it('an incremental export that finds no conversations keeps the tables readable, and the 0-row file goes once rows arrive', async () => {
    const sim = await simulator({ seed: 292, conversations: 12 });
    const db = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db };
    expect((await runCli(['sync'], env)).code).toBe(0);
    const tables = await stored(db);
    const out = join(db, '..', 'lake');
    const exportSince = (since: string) => runCli(['export', '--db', db, '--out', out, '--partition-by', 'space,day', '--since', since]);

    // nothing started since then: every conversation table is empty in this folder
    let res = await exportSince('2999-01-01');
    expect(res.code, res.stderr).toBe(0);
    for (const t of WITH_ROWS) {
      const want = { columns: expectedColumns(t, tables[t]!, 'space,day'), rows: 0 };
      expect(await readWithDuckDB(join(out, t)), t).toEqual(want);
      expect(await readWithHyparquet(join(out, t)), t).toEqual(want);
    }

    // now every conversation: the partitions written replace the 0-row file
    res = await exportSince('2000-01-01');
    expect(res.code, res.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'convoduck-export.json'), 'utf8')) as {
      tables: Record<string, { partitions?: Record<string, unknown> }>;
    };
    for (const t of WITH_ROWS) {
      const want = { columns: expectedColumns(t, tables[t]!, 'space,day'), rows: tables[t]!.rows };
      expect(await readWithDuckDB(join(out, t)), t).toEqual(want);
      expect(await readWithHyparquet(join(out, t)), t).toEqual(want);
      expect(filesUnder(join(out, t)).filter((f) => f.endsWith('/empty.parquet')), t).toEqual([]);
      expect(existsSync(join(out, t, 'space=__HIVE_DEFAULT_PARTITION__')), t).toBe(false);
      expect(Object.keys(manifest.tables[t]!.partitions ?? {}).filter((p) => p.includes('__HIVE_DEFAULT_PARTITION__')), t).toEqual([]);
    }
  }, 300_000);
});
