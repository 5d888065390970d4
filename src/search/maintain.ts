// Keeping the search index current: the turns a write has just staged are indexed in the same
// transaction as they are stored (store/derive.ts), and a conversation's index rows go wherever
// its turns go (re-fetched, rebuilt, erased), because the index tables are among its child tables.

import type { Database } from '../store/database.js';
import { termRowsSql } from './tokenize.js';

/**
 * Whether writes index the turns they store. Only the bench turns it off, to measure what
 * keeping the index current costs a sync.
 */
export const searchIndexing = { enabled: true };

/**
 * Indexes the turns of the staged relation `staged` (conversation_id, seq, text; seq may be
 * text): one tokenizing pass into a temp table, from which both index tables are filled.
 */
export async function indexStagedTurns(db: Database, staged: string): Promise<void> {
  if (!searchIndexing.enabled) return;
  await db.run(`CREATE OR REPLACE TEMP TABLE _search_rows AS ${termRowsSql(staged)}`);
  await db.run(`INSERT INTO search_terms SELECT term, conversation_id, seq::INTEGER FROM _search_rows`);
  await db.run(`
    INSERT INTO search_turns
    SELECT t.conversation_id, t.seq::INTEGER, count(r.term)::INTEGER
    FROM ${staged} t LEFT JOIN _search_rows r ON r.conversation_id = t.conversation_id AND r.seq = t.seq
    GROUP BY t.conversation_id, t.seq`);
  await db.run('DROP TABLE _search_rows');
}
