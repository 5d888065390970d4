// Opening the DuckDB file. DuckDB lets only one process hold a file, even for reading, so
// writers open, commit and close per batch, and readers wait briefly for the lock.

import { DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { chmodSync, closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SCHEMA_SQL, SCHEMA_VERSION } from './schema.js';

export type Params = DuckDBValue[] | Record<string, DuckDBValue>;
export type Row = Record<string, unknown>;

export class StoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface OpenOptions {
  readOnly?: boolean;
  /** refuse to create a new file (commands that only make sense on an existing database) */
  mustExist?: boolean;
  /** how long to wait for another process to release the file (ms) */
  lockTimeoutMs?: number;
}

const LOCK_ERROR = /Could not set lock on file|Conflicting lock is held/i;

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
    const isNew = !existsSync(path);
    const deadline = Date.now() + (options.lockTimeoutMs ?? 30_000);
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      try {
        const instance = await DuckDBInstance.create(path, readOnly ? { access_mode: 'READ_ONLY' } : {});
        const connection = await instance.connect();
        await connection.run(`SET TimeZone = 'UTC'`);
        const db = new Database(path, instance, connection);
        if (!readOnly) await db.migrate();
        // Transcripts are personal data: a new database is readable by its owner only.
        if (isNew && !readOnly) chmodSync(path, 0o600);
        return db;
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (LOCK_ERROR.test(message) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, delay));
          continue;
        }
        if (LOCK_ERROR.test(message)) {
          throw new StoreError(`database ${path} is busy (another process holds it): try again shortly`);
        }
        throw new StoreError(`cannot open database ${path}: ${firstLine(message)}`);
      }
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

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }

  private async migrate(): Promise<void> {
    await this.connection.run(SCHEMA_SQL);
    const stored = await this.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
    if (stored && Number(stored.value) > SCHEMA_VERSION) {
      throw new StoreError(
        `database ${this.path} was written by a newer convoduck (schema ${stored.value}): upgrade convoduck`,
      );
    }
    if (!stored) {
      await this.connection.run(`INSERT INTO convoduck_meta VALUES ('schema_version', ?)`, [String(SCHEMA_VERSION)]);
    }
  }
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
