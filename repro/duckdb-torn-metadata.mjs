// Minimal reproduction for an upstream DuckDB report: a checkpoint rewrites a metadata block in
// place while the file's header still points into it, so a write of that block cut short (a
// SIGKILL during the pwrite: Linux stops a buffered write between pages once a fatal signal is
// pending) leaves a file that does not open:
//   IO Error: Corrupt database file: computed checksum … does not match stored checksum … in block at location 12288
//
// A kill cannot be aimed at a pwrite of a few microseconds, so this builds the file such a kill
// leaves: the headers (and every other block) as they were before the second checkpoint, and the
// first 4 KB page of block 0 as the second checkpoint wrote it. That is every byte the file holds
// when the kill lands after the first page of the block's write and before the new header's.
//
//   node repro/duckdb-torn-metadata.mjs [DIR]
//
// Prints, with @duckdb/node-api 1.5.5-r.5 (DuckDB v1.5.5) on Linux x86_64:
//   DuckDB v1.5.5: the second checkpoint rewrote 6 of block 0's 4 KB pages in place (pages 0, 3, 4, 5, 6, 7)
//   the file before it reads: 1000 rows
//   the torn file does not open: IO Error: Corrupt database file: computed checksum … does not match stored checksum … in block at location 12288
// The cause in DuckDB's source: MetadataManager::AllocateHandle takes a free slot of an existing
// metadata block (ConvertToTransient copies the block, live slots included), and Flush writes the
// whole block back to the same block id, before the checkpoint writes its new header.

import { DuckDBInstance, version } from '@duckdb/node-api';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'duckdb-torn-'));
mkdirSync(dir, { recursive: true });
const db = join(dir, 'db.duckdb');
const HEADERS = 3 * 4096; // the main header and the two database headers: block 0 starts here
const PAGE = 4096;

async function run(sql) {
  const instance = await DuckDBInstance.create(db);
  const connection = await instance.connect();
  for (const statement of sql) await connection.run(statement);
  connection.closeSync();
  instance.closeSync();
}

async function readAll(path) {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  try {
    const connection = await instance.connect();
    const rows = (await connection.runAndReadAll('SELECT count(*)::INTEGER AS n, max(hash(s)) AS h FROM t')).getRowObjectsJS();
    connection.closeSync();
    return `${rows[0].n} rows`;
  } finally {
    instance.closeSync();
  }
}

// 1. A file whose metadata sits in block 0 with free slots left in it.
await run(['CREATE TABLE t (i INTEGER, s VARCHAR)', "INSERT INTO t SELECT range, 'row ' || range FROM range(1000)", 'CHECKPOINT']);
const before = join(dir, 'before.duckdb');
copyFileSync(db, before);

// 2. A second checkpoint: its new metadata goes into block 0's free slots, and block 0 is written back whole.
await run(["INSERT INTO t SELECT range, 'more ' || range FROM range(1000)", 'CHECKPOINT']);

const a = readFileSync(before);
const b = readFileSync(db);
const changed = [];
for (let page = 0; page < 64; page++) {
  const at = HEADERS + page * PAGE;
  if (!a.subarray(at, at + PAGE).equals(b.subarray(at, at + PAGE))) changed.push(page);
}
console.log(`DuckDB ${version()}: the second checkpoint rewrote ${changed.length} of block 0's 4 KB pages in place (pages ${changed.join(', ')})`);
console.log(`the file before it reads: ${await readAll(before)}`);

// 3. The file a kill leaves after the first page of block 0's write, before the new header.
const torn = join(dir, 'torn.duckdb');
copyFileSync(before, torn);
const fd = openSync(torn, 'r+');
writeSync(fd, b, HEADERS, PAGE, HEADERS);
closeSync(fd);
try {
  console.log(`the torn file reads: ${await readAll(torn)}`);
} catch (err) {
  console.log(`the torn file does not open: ${err.message.split('\n')[0]}`);
}
console.log(`files in ${dir}`);
