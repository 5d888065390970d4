// Opening the DuckDB file. DuckDB lets only one process hold a file, even for reading, so
// writers open, commit and close per batch, and readers wait briefly for the lock.

import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { chmodSync, closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { MIGRATIONS } from './migrations.js';
import { ALL_VIEWS_SQL, SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';
import { DatabaseBusyError, StoreError } from '../shared/errors.js';
import { upgradeNotice } from './upgrade-notice.js';
import { lastGoodHint } from './last-good.js';
import { sqlText } from './sql.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;


export interface OpenOptions {
  readOnly?: boolean;
  /** refuse to create a new file (commands that only make sense on an existing database) */
  mustExist?: boolean;
  /** how long to wait for another process to release the file (ms) */
  lockTimeoutMs?: number;
  /**
   * cap DuckDB's memory (WRITER_MEMORY_LIMIT for the crawl's writes): without it DuckDB keeps
   * every block it read cached, up to most of the machine's memory, so a write's memory would grow
   * with the columns it scans (the id columns of every stored conversation)
   */
  memoryLimit?: string;
  /** with readOnly: read an older convoduck's file as it is, never upgrading it (a reader that writes nothing) */
  asItIs?: boolean;
}

/**
 * What the crawl's writer lets DuckDB hold: its batches need little, and what it scans streams
 * through instead of staying cached, so a sync's memory does not grow with the database. Half of
 * it is too little for a batch's transaction. `rebuild` gets no cap: its one transaction over
 * every table needs more.
 */
export const WRITER_MEMORY_LIMIT = '64MB';

/**
 * What the crawl's writer lets DuckDB hold while it checkpoints. A checkpoint merges a table's small
 * trailing row groups (one per write) into a full one of up to WRITE_ROW_GROUP_SIZE rows, all of
 * its raw bodies at once. A lower cap than the writes' makes DuckDB spill part of that merge to
 * disk rather than hold it; a much lower one fails the checkpoint itself.
 */
export const CHECKPOINT_MEMORY_LIMIT = '40MB';

/**
 * The cap a write or checkpoint that failed under the usual ones is tried again under, for that
 * one item only: a cap that can be met must never fail a run.
 */
export const RAISED_MEMORY_LIMIT = '256MB';

/**
 * The storage format convoduck writes: the oldest that compresses the raw bodies with ZSTD
 * (schema.ts). Any DuckDB from 1.2.0 reads the file; an existing file is upgraded when a write opens it.
 */
const STORAGE_VERSION = 'v1.2.0';

/** Rows per row group in files convoduck writes (DuckDB's default is 122,880): see openWritable. */
const WRITE_ROW_GROUP_SIZE = 16_384;

/** A WAL size no write reaches: DuckDB never checkpoints on a commit (see openWritable). */
const AUTOMATIC_CHECKPOINT_NEVER = '1TB';

const LOCK_ERROR = /Could not set lock on file|Conflicting lock is held/i;

/**
 * The files this process has open, and whether for writing. DuckDB's file lock keeps other
 * processes out, not this one: a second instance on a file another instance of the process writes
 * opens without a word, and one instance's checkpoint overwrites the other's (commits silently
 * lost, or a file neither can read). Such an opening is a bug, and fails loudly instead.
 */
const openHere = new Map<string, { writable: boolean; count: number }>();

function claim(path: string, readOnly: boolean): void {
  const key = resolve(path);
  const held = openHere.get(key);
  if (held && (held.writable || !readOnly)) {
    throw new StoreError(
      `database ${path} is already open ${held.writable ? 'for writing' : 'for reading'} in this process: ` +
        'a second instance on the file would lose writes (a convoduck bug: please report it)',
    );
  }
  openHere.set(key, { writable: !readOnly, count: (held?.count ?? 0) + 1 });
}

function release(path: string): void {
  const key = resolve(path);
  const held = openHere.get(key);
  if (!held) return;
  if (held.count <= 1) openHere.delete(key);
  else held.count--;
}


export class Database {
  private constructor(
    readonly path: string,
    private readonly instance: DuckDBInstance,
    readonly connection: DuckDBConnection,
  ) {}

  static async open(path: string, options: OpenOptions = {}): Promise<Database> {
    const readOnly = options.readOnly ?? false;
    if ((readOnly || options.mustExist) && !existsSync(path)) {
      throw new StoreError(`database ${path} does not exist: run \`convoduck sync\` first or pass --db`);
    }
    if (existsSync(path)) assertDuckDbFile(path);
    const deadline = Date.now() + (options.lockTimeoutMs ?? 30_000);
    const db = await Database.connect(path, readOnly, deadline, options.memoryLimit);
    const version = readOnly && options.asItIs !== true ? await db.schemaVersion() : null;
    if (version !== null && version < SCHEMA_VERSION) {
      // A database from an older convoduck: upgrade it (a writable open migrates), then read. A file
      // convoduck never wrote (no version) is read as it is.
      db.close();
      (await Database.connect(path, false, deadline)).close();
      return Database.connect(path, true, deadline);
    }
    return db;
  }

  /**
   * A database of no file: an in-memory instance, named `label` in messages, that a caller fills
   * with views (store/read-source.ts: a lake, or a folder of space files).
   */
  static async inMemory(label: string): Promise<Database> {
    const instance = await DuckDBInstance.create(':memory:');
    const db = new Database(label, instance, await instance.connect());
    try {
      await db.run(`SET TimeZone = 'UTC'`);
    } catch (err) {
      db.close();
      throw err;
    }
    return db;
  }

  private static async connect(path: string, readOnly: boolean, deadline: number, memoryLimit?: string): Promise<Database> {
    const isNew = !existsSync(path);
    claim(path, readOnly);
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      let opened: { instance: DuckDBInstance; connection: DuckDBConnection };
      try {
        opened = readOnly ? await openReadOnly(path) : await openWritable(path, memoryLimit);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (LOCK_ERROR.test(message) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, delay));
          continue;
        }
        release(path);
        if (LOCK_ERROR.test(message)) {
          // transient, not a usage error: the caller's next run gets in (exit 1)
          throw new DatabaseBusyError(`database ${path} stayed locked by another process: try again shortly`);
        }
        throw new StoreError(`cannot open database ${path}: ${firstLine(message)}${await lastGoodHint(path, message)}`);
      }
      const db = new Database(path, opened.instance, opened.connection);
      try {
        await db.run(`SET TimeZone = 'UTC'`);
        if (!readOnly) await db.migrate();
      } catch (err) {
        db.close();
        if (err instanceof StoreError) throw err;
        throw new StoreError(`cannot open database ${path}: ${firstLine(err instanceof Error ? err.message : String(err))}`);
      }
      // Transcripts are personal data: a new database is readable by its owner only.
      if (isNew && !readOnly) chmodSync(path, 0o600);
      return db;
    }
  }

  /** Opens, runs `work`, closes: how every writer should touch the file. */
  static async with<T>(path: string, work: (db: Database) => Promise<T>, options: OpenOptions = {}): Promise<T> {
    const db = await Database.open(path, options);
    try {
      return await work(db);
    } finally {
      db.close();
    }
  }

  async run(sql: string, params?: Params): Promise<void> {
    await this.connection.run(sql, params);
  }

  /** Rows as plain JS values (BIGINT as bigint, timestamps as Date). */
  async all<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS() as T[];
  }

  /** Rows as JSON-safe values (BIGINT as string, timestamps as ISO-like strings). */
  async allJson<T extends Row = Row>(sql: string, params?: Params): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJson() as T[];
  }

  async one<T extends Row = Row>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      const result = await work();
      await this.connection.run('COMMIT');
      return result;
    } catch (err) {
      await this.connection.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /** Runs `work` with DuckDB's memory capped at `limit`, then gives back the cap it had. */
  async withMemoryLimit<T>(limit: string, work: () => Promise<T>): Promise<T> {
    const before = await this.one<{ value: string }>(`SELECT current_setting('memory_limit') AS value`);
    await this.run(`SET memory_limit = ${sqlText(limit)}`);
    try {
      return await work();
    } finally {
      await this.run(`SET memory_limit = ${sqlText(before?.value ?? limit)}`);
    }
  }

  /**
   * Writes the WAL's commits into the file, DuckDB capped at `memoryLimit` meanwhile. When it
   * throws, DuckDB has given up the instance: the commits wait in the WAL for the next opening.
   */
  async checkpoint(memoryLimit: string): Promise<void> {
    await this.withMemoryLimit(memoryLimit, () => this.run('CHECKPOINT'));
  }

  close(): void {
    try {
      this.connection.closeSync();
      this.instance.closeSync();
    } finally {
      release(this.path);
    }
  }

  /** The schema version stored in the file (null when there is none). */
  private async schemaVersion(): Promise<number | null> {
    const row = await this.one<{ value: string }>(
      `SELECT value FROM convoduck_meta WHERE key = 'schema_version'`,
    ).catch(() => undefined);
    return row ? Number(row.value) : null;
  }

  private async migrate(): Promise<void> {
    const existing = await this.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = current_database() AND table_name = 'convoduck_meta'`,
    );
    const stored = existing?.n ? ((await this.schemaVersion()) ?? 1) : SCHEMA_VERSION;
    if (stored > SCHEMA_VERSION) {
      throw new StoreError(`database ${this.path} was written by a newer convoduck (schema ${stored}): upgrade convoduck`);
    }
    await this.connection.run(SCHEMA_SQL);
    if (existing?.n && stored === SCHEMA_VERSION) return;
    if (existing?.n) upgradeNotice.listener?.(this.path, stored, SCHEMA_VERSION);
    // A migration may copy whole tables: uncapped, DuckDB would cache all of them; capped, the
    // copy streams through.
    await this.withMemoryLimit(WRITER_MEMORY_LIMIT, () =>
      this.transaction(async () => {
        for (let version = stored + 1; version <= SCHEMA_VERSION; version++) {
          const step = MIGRATIONS[version]!;
          if (typeof step === 'string') await this.connection.run(step);
          else await step(this);
        }
        // the views read the tables as the last migration left them: a new file gets them now
        if (!existing?.n) await this.connection.run(ALL_VIEWS_SQL);
        await this.connection.run(`INSERT OR REPLACE INTO convoduck_meta VALUES ('schema_version', ?)`, [String(SCHEMA_VERSION)]);
      }),
    );
  }
}

async function openReadOnly(path: string): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  return { instance, connection: await instance.connect() };
}

/**
 * The row group size weighs two costs of a checkpoint. Each write appends its rows as a row group
 * of their own, and a checkpoint merges the small ones into a full one, loading its raw bodies back
 * into memory: with DuckDB's default of 122,880 rows, as many bodies. And it loads the metadata of
 * every row group of a table it writes to, which with small row groups grows with every transcript
 * turn stored. This size keeps both small; a smaller one also makes the file larger. The size is an
 * attach option, hence the in-memory instance that attaches the file; the file itself stays an
 * ordinary DuckDB database any reader can open.
 */
/** Openings of a file for writing in this process, so that each spills into a directory of its own. */
let writableOpenings = 0;

async function openWritable(path: string, memoryLimit?: string): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  // DuckDB removes its spill directory when the instance is freed, which can come after the next
  // opening (a failed write's result still held): a shared directory would vanish under it.
  const spill = `${path}.tmp.${process.pid}.${++writableOpenings}`;
  const instance = await DuckDBInstance.create(':memory:', { temp_directory: spill });
  try {
    const connection = await instance.connect();
    if (memoryLimit) {
      await connection.run(`SET memory_limit = ${sqlText(memoryLimit)}`);
      // Each DuckDB thread keeps allocations of its own outside the cap; a capped writer runs one
      // statement at a time, so a second thread buys it little and costs resident memory.
      await connection.run('SET threads = 1');
    }
    // A commit whose WAL passed DuckDB's threshold checkpoints on its own, and a checkpoint that
    // fails under the cap invalidates the instance mid-write: the writer checkpoints when it chooses.
    await connection.run(`SET checkpoint_threshold = '${AUTOMATIC_CHECKPOINT_NEVER}'`);
    await connection.run(`ATTACH ${sqlText(path)} AS store (${writableAttachOptions()})`);
    await connection.run('USE store');
    return { instance, connection };
  } catch (err) {
    instance.closeSync();
    throw err;
  }
}

/** The options a file convoduck writes is attached with (also those of a file rewritten by `forget`). */
export function writableAttachOptions(): string {
  return `ROW_GROUP_SIZE ${WRITE_ROW_GROUP_SIZE}, STORAGE_VERSION '${STORAGE_VERSION}'`;
}

/**
 * Fails early, with a message that says what to do, when `path` cannot hold a database convoduck
 * may write: checked before anything else happens (a sync checks it before its first request).
 */
export function checkWritableDatabase(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new StoreError(`directory ${dir} does not exist: create it, or pass --db with a path in an existing directory`);
  }
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) throw new StoreError(`${path} is a directory: pass --db with a file path`);
    assertDuckDbFile(path);
  }
  // Access checks lie for root and on read-only mounts: only creating a file tells.
  const probe = join(dir, `.convoduck-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx', 0o600));
    rmSync(probe, { force: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new StoreError(`cannot write in ${dir} (${code}): pass --db with a path in a writable directory`);
  }
}

/** Refuse to let DuckDB touch a file that is not a DuckDB database (it would fail, or worse). */
function assertDuckDbFile(path: string): void {
  const header = Buffer.alloc(12);
  const fd = openSync(path, 'r');
  let bytes: number;
  try {
    bytes = readSync(fd, header, 0, 12, 0);
  } finally {
    closeSync(fd);
  }
  if (bytes === 0) return; // an empty file becomes a new database
  if (bytes < 12 || header.toString('latin1', 8, 12) !== 'DUCK') {
    throw new StoreError(`${path} is not a DuckDB database: pass --db with a .duckdb file convoduck created`);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
