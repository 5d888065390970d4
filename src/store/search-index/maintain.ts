// Keeping the search index current: the turns a write has just staged are indexed in the same
// transaction as they are stored (store/derive.ts), and a conversation's index rows go wherever
// its turns go (re-fetched, rebuilt, erased), because the index tables are among its child tables.

import type { Database } from '../database.js';
import { indexTurnsSql } from './schema.js';

/**
 * Whether writes index the turns they store. Only the bench turns it off, to measure what
 * keeping the index current costs a sync.
 */
export const searchIndexing = { enabled: true };

/** Indexes the turns of the staged relation `staged` (conversation_id, seq, text), in the caller's transaction. */
export async function indexStagedTurns(db: Database, staged: string): Promise<void> {
  if (!searchIndexing.enabled) return;
  await db.run(indexTurnsSql(staged));
}
