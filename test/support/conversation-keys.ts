// conversation_key as the schema documents it, worked out in JavaScript: the id itself when it is
// a UUID in lower case with hyphens, else the UUID of its MD5.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { Database } from '../../src/store/database.js';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function expectedConversationKey(id: string): string {
  if (CANONICAL_UUID.test(id)) return id;
  const hex = createHash('md5').update(id, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Every row of the conversation tables carries its conversation's key. */
export async function expectConversationKeys(db: Database): Promise<void> {
  for (const [table, id] of [
    ['conversations', 'id'],
    ['transcript_turns', 'conversation_id'],
    ['tool_calls', 'conversation_id'],
    ['node_visits', 'conversation_id'],
    ['conversation_figures', 'conversation_id'],
  ] as const) {
    const rows = await db.all<{ id: string; conversation_key: string | null }>(
      `SELECT DISTINCT ${id} AS id, conversation_key::VARCHAR AS conversation_key FROM ${table}`,
    );
    for (const row of rows) expect(row.conversation_key, `${table}.conversation_key of ${row.id}`).toBe(expectedConversationKey(row.id));
  }
}
