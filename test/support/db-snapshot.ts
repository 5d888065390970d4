// Every table of a DuckDB file as sorted JSON lines, and its bytes: what an erasure test compares
// before and after, and searches for text that must be gone.
import { existsSync, readFileSync } from 'node:fs';
import { Database } from '../../src/store/database.js';

export type Snapshot = Map<string, { columns: string[]; rows: string[] }>;

/** Each table's rows, each as a JSON line of all its columns, sorted. */
export async function snapshotTables(dbPath: string): Promise<Snapshot> {
  return Database.with(
    dbPath,
    async (db) => {
      const tables = await db.all<{ table_name: string }>(
        `SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary ORDER BY 1`,
      );
      const out: Snapshot = new Map();
      for (const { table_name: t } of tables) {
        const rows = await db.allJson(`SELECT * FROM "${t}"`);
        const columns = rows.length > 0 ? Object.keys(rows[0]!) : [];
        out.set(t, { columns, rows: rows.map((r) => JSON.stringify(r)).sort() });
      }
      return out;
    },
    { readOnly: true },
  );
}

/** The row's conversation: its `conversation_id`, or `id` in a table of conversations. */
export function conversationOf(table: string, row: string): string | null {
  const r = JSON.parse(row) as Record<string, unknown>;
  if (typeof r.conversation_id === 'string') return r.conversation_id;
  const byId = ['conversations', 'raw_conversations', 'raw_listed_conversations', 'raw_conversation_parts', 'deleted_conversations'];
  return byId.includes(table) && typeof r.id === 'string' ? r.id : null;
}

/** The database file's bytes, and its WAL's when there is one. */
export function fileBytes(dbPath: string): Buffer {
  const wal = `${dbPath}.wal`;
  return Buffer.concat([readFileSync(dbPath), existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0)]);
}

/** The needles found in the bytes, as UTF-8. */
export function foundIn(bytes: Buffer, needles: readonly string[]): string[] {
  return needles.filter((n) => bytes.includes(Buffer.from(n, 'utf8')));
}
