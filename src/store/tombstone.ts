// A conversation erased stays erased: a listing page that serves it again (a `--full` or
// `--since` listing, the overlap of an incremental one) stores nothing of it, so the planner,
// which plans details from the stored list entries, never asks for it either.

import type { Database } from './database.js';
import { idParams, inIds } from './batch-sql.js';

/** The entries whose conversation was not erased. */
export async function withoutErased<T extends { id: string }>(db: Database, entries: readonly T[]): Promise<T[]> {
  if (entries.length === 0) return [];
  const ids = entries.map((e) => e.id);
  const rows = await db.all<{ id: string }>(`SELECT DISTINCT id FROM erasures WHERE ${inIds(ids, 'id')}`, idParams(ids));
  if (rows.length === 0) return [...entries];
  const erased = new Set(rows.map((r) => r.id));
  return entries.filter((e) => !erased.has(e.id));
}
