// `--space SLUG` for everything that reads the database (report, query, status, export): the
// tables are shadowed, for this connection only, by temporary views of the same names that hold
// only the given spaces' rows. The SQL then runs unchanged (a report, the user's query, an
// export), and the file is not written. Tables without a space column follow their parent:
// a conversation's turns, calls and visits; an agent's versions and nodes; a run's errors.

import { DuckDBConnection } from '@duckdb/node-api';
import { InvalidInputError } from '../shared/errors.js';
import { sqlIdent, sqlText } from './sql.js';

/** A connection, or what holds one (Database). */
type Connected = DuckDBConnection | { connection: DuckDBConnection };

function connectionOf(db: Connected): DuckDBConnection {
  return db instanceof DuckDBConnection ? db : db.connection;
}

async function rowsOf<T>(db: Connected, sql: string): Promise<T[]> {
  return (await connectionOf(db).runAndReadAll(sql)).getRowObjectsJS() as T[];
}

/** A slug asked for that the database holds no row of. */
export class SpaceNotStoredError extends InvalidInputError {
  constructor(
    readonly unknown: string[],
    readonly known: string[],
  ) {
    super(
      `no space ${unknown.map((s) => JSON.stringify(s)).join(', ')} in this database — ` +
        (known.length > 0 ? `known: ${known.join(', ')}` : 'it holds no space yet: run `convoduck sync` first'),
    );
  }
}

/** Tables that carry the slug, and what the others hang on. */
const SPACE_SOURCES = [
  'conversations',
  'raw_listed_conversations',
  'agents',
  'sync_runs',
  'listing_watermarks',
] as const;

/** The spaces the database holds rows of, sorted. */
export async function storedSpaces(db: Connected): Promise<string[]> {
  // views too: a lake or a folder of space files is read through views of the tables' names
  const present = new Set([...(await tableNames(db)), ...(await viewNames(db))]);
  const sources = SPACE_SOURCES.filter((t) => present.has(t)).map((t) => `SELECT space FROM ${t}`);
  if (sources.length === 0) return [];
  const rows = await rowsOf<{ space: string }>(
    db,
    `SELECT DISTINCT space FROM (${sources.join(' UNION ALL ')}) WHERE space IS NOT NULL ORDER BY space`,
  );
  return rows.map((r) => r.space);
}

/** Refuses a slug the database holds nothing of (one line listing the known ones). */
export async function checkSpaces(db: Connected, spaces: readonly string[]): Promise<void> {
  if (spaces.length === 0) return;
  const known = await storedSpaces(db);
  const unknown = [...new Set(spaces)].filter((s) => !known.includes(s));
  if (unknown.length > 0) throw new SpaceNotStoredError(unknown, known);
}

/**
 * From now on this connection sees only the rows of `spaces` in every table (nothing changes
 * when `spaces` is empty). Checks the slugs first (checkSpaces).
 */
export async function limitToSpaces(db: Connected, spaces: readonly string[]): Promise<void> {
  if (spaces.length === 0) return;
  await checkSpaces(db, spaces);
  const [catalog] = await rowsOf<{ name: string }>(db, `SELECT current_database() AS name`);
  const main = `${sqlIdent(catalog!.name)}.main`;
  const list = `(${[...new Set(spaces)].map(sqlText).join(', ')})`;
  const columns = await rowsOf<{ table_name: string; column_name: string }>(
    db,
    `SELECT table_name, column_name FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal`,
  );
  const byTable = new Map<string, Set<string>>();
  for (const c of columns) {
    if (!byTable.has(c.table_name)) byTable.set(c.table_name, new Set());
    byTable.get(c.table_name)!.add(c.column_name);
  }
  // a view with a space column (conversations_named) is shadowed too, like a table
  const tables = new Set([...(await tableNames(db)), ...(await viewNames(db))]);
  const parent = {
    conversation_id: `SELECT id FROM ${main}.conversations WHERE space IN ${list}`,
    agent_id: `SELECT id FROM ${main}.agents WHERE space IN ${list}`,
    run_id: `SELECT run_id FROM ${main}.sync_runs WHERE space IN ${list}`,
  };
  for (const [table, cols] of byTable) {
    if (!tables.has(table)) continue;
    let where: string | null = null;
    // a run's errors follow the run (a listing error names no conversation)
    if (cols.has('space')) where = `space IN ${list}`;
    else if (cols.has('run_id')) where = `run_id IN (${parent.run_id})`;
    else if (cols.has('conversation_id')) where = `conversation_id IN (${parent.conversation_id})`;
    else if (cols.has('agent_id')) where = `agent_id IN (${parent.agent_id})`;
    if (where === null) continue;
    await connectionOf(db).run(`CREATE OR REPLACE TEMP VIEW ${sqlIdent(table)} AS SELECT * FROM ${main}.${sqlIdent(table)} WHERE ${where}`);
  }
}

async function tableNames(db: Connected): Promise<string[]> {
  const rows = await rowsOf<{ table_name: string }>(
    db,
    `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main'`,
  );
  return rows.map((r) => r.table_name);
}

async function viewNames(db: Connected): Promise<string[]> {
  const rows = await rowsOf<{ view_name: string }>(
    db,
    `SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary`,
  );
  return rows.map((r) => r.view_name);
}
