// Erasing conversations from the store: every row of them in every table, in one transaction,
// and a row per conversation in `erasures` (the log, and the tombstone that keeps later listings
// from storing them again). The freed blocks still hold their bytes until the file is rewritten
// (store/rewrite-file.ts): the transaction marks that as pending, so a rewrite that did not happen is done
// by the next `forget` or retention pass. A conversation's recording file goes with its rows, and
// its log row says so (recording_deleted).

import type { Database } from '../store/database.js';
import { stage } from '../store/batch-sql.js';
import { CONVERSATION_ROW_TABLES, type ErasureRule } from '../store/erasures.js';
import { REWRITE_PENDING } from '../store/rewrite-file.js';
import { recordingFiles } from '../store/recordings.js';
import { dropLastGood } from '../store/last-good.js';
import type { ErasureTarget } from './select.js';
import { rm } from 'node:fs/promises';

export interface Erasure {
  target: ErasureTarget;
  rule: ErasureRule;
  /** a keyed hash of the selector (never the selector itself), or null */
  selectorHash: string | null;
}

/** Erases the conversations, then their recordings' files; returns how many files it removed. */
export async function eraseConversations(db: Database, erasures: readonly Erasure[], erasedAt: Date): Promise<number> {
  if (erasures.length === 0) return 0;
  // the copy a sync keeps (store/last-good.ts) holds these rows: it goes before they do, so that a
  // run killed before the rewrite (which keeps a new copy) leaves no copy a sync could restore them from
  dropLastGood(db.path);
  const files = await recordingFiles(db, erasures.map((e) => e.target.id));
  await stage(
    db,
    '_erase',
    ['id', 'space', 'rule', 'selector_hash', 'recording'],
    erasures.map((e) => [e.target.id, e.target.space, e.rule, e.selectorHash, files.get(e.target.id) ?? null]),
  );
  await db.transaction(async () => {
    for (const [table, column] of CONVERSATION_ROW_TABLES) {
      await db.run(`DELETE FROM ${table} WHERE ${column} IN (SELECT id FROM _erase)`);
    }
    await db.run(`INSERT INTO erasures SELECT id, space, ?::TIMESTAMPTZ, rule, selector_hash, recording IS NOT NULL FROM _erase`, [erasedAt.toISOString()]);
    await db.run(`INSERT OR REPLACE INTO convoduck_meta VALUES (?, ?)`, [REWRITE_PENDING, erasedAt.toISOString()]);
  });
  await db.run(`DROP TABLE _erase`);
  // once the rows are gone for good: a failed transaction keeps both rows and files
  for (const file of files.values()) await rm(file, { force: true });
  return files.size;
}
