// `convoduck rebuild` below the CLI: every derived table remade from the stored raw responses
// (derive.ts) in one transaction, and how many rows the main tables hold afterwards.

import { Database } from './database.js';
import { rebuild } from './derive.js';

/** Tables whose row counts `rebuild` reports, in the order it prints them. */
const COUNTED_TABLES = ['conversations', 'transcript_turns', 'tool_calls', 'node_visits', 'agents', 'agent_versions', 'workflow_nodes'] as const;

/** Rebuilds the database at `dbPath` (which must exist); returns each counted table's rows. */
export async function rebuildDatabase(dbPath: string): Promise<Record<(typeof COUNTED_TABLES)[number], number>> {
  return Database.with(
    dbPath,
    async (db) => {
      await rebuild(db);
      const row = await db.one<Record<(typeof COUNTED_TABLES)[number], number>>(
        `SELECT ${COUNTED_TABLES.map((t) => `(SELECT count(*) FROM ${t})::INTEGER AS ${t}`).join(', ')}`,
      );
      return row!;
    },
    { mustExist: true },
  );
}
