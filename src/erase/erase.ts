// Erasing conversations from the store: every row of them in every table, in one transaction,
// and a row per conversation in `erasures` (the log, and the tombstone that keeps later listings
// from storing them again). The freed blocks still hold their bytes until the file is rewritten
// (store/rewrite-file.ts): the transaction marks that as pending, so a rewrite that did not happen is done
// by the next `forget` or retention pass.

import type { Database } from '../store/database.js';
import { stage } from '../store/batch-sql.js';
import { CONVERSATION_ROW_TABLES, type ErasureRule } from '../store/erasures.js';
import { REWRITE_PENDING } from '../store/rewrite-file.js';
import type { ErasureTarget } from './select.js';

export interface Erasure {
  target: ErasureTarget;
  rule: ErasureRule;
  /** a keyed hash of the selector (never the selector itself), or null */
  selectorHash: string | null;
}

export async function eraseConversations(db: Database, erasures: readonly Erasure[], erasedAt: Date): Promise<void> {
  if (erasures.length === 0) return;
  await stage(
    db,
    '_erase',
    ['id', 'space', 'rule', 'selector_hash'],
    erasures.map((e) => [e.target.id, e.target.space, e.rule, e.selectorHash]),
  );
  await db.transaction(async () => {
    for (const [table, column] of CONVERSATION_ROW_TABLES) {
      await db.run(`DELETE FROM ${table} WHERE ${column} IN (SELECT id FROM _erase)`);
    }
    await db.run(`INSERT INTO erasures SELECT id, space, ?::TIMESTAMPTZ, rule, selector_hash FROM _erase`, [erasedAt.toISOString()]);
    await db.run(`INSERT OR REPLACE INTO convoduck_meta VALUES (?, ?)`, [REWRITE_PENDING, erasedAt.toISOString()]);
  });
  await db.run(`DROP TABLE _erase`);
}
