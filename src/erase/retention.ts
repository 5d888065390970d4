// Retention, run after a space's sync: its conversations that started more than `retainDays` days
// ago are erased (rule `retention`), and, when asked, those the source deleted (`deleted_at_source`),
// through the same path as `forget`: one transaction, the tombstones, then the file rewritten.
// The tombstones keep a later listing (the incremental one's overlap, a --full or --since one)
// from storing them again, so no detail of them is ever asked for again.

import { acquireSyncLock } from '../store/sync-lock.js';
import { Database } from '../store/database.js';
import { rewriteDatabaseFile, rewritePending } from '../store/rewrite-file.js';
import { eraseConversations, type Erasure } from './erase.js';
import type { ErasureRule } from '../store/erasures.js';
import { deletedAtSource, startedBefore, storedConversations } from './select.js';

export interface RetentionPolicy {
  space: string;
  /** erase conversations that started more than this many days before now */
  retainDays?: number;
  /** erase conversations seen deleted at the source */
  eraseDeletedAtSource?: boolean;
}

export interface RetentionResult {
  space: string;
  retention: number;
  deletedAtSource: number;
}

const DAY_MS = 86_400_000;

/** Whether a policy asks for anything. */
export function retentionWanted(policy: Omit<RetentionPolicy, 'space'>): boolean {
  return policy.retainDays !== undefined || policy.eraseDeletedAtSource === true;
}

/** Applies each space's policy; the file is rewritten once when anything was erased. */
export async function applyRetention(dbPath: string, policies: readonly RetentionPolicy[], now = new Date()): Promise<RetentionResult[]> {
  const wanted = policies.filter(retentionWanted);
  if (wanted.length === 0) return [];
  const lock = acquireSyncLock(dbPath);
  try {
    const { results, pending } = await Database.with(dbPath, async (db) => {
      const out: RetentionResult[] = [];
      for (const policy of wanted) {
        const picked = new Map<string, ErasureRule>();
        if (policy.retainDays !== undefined) {
          for (const id of await startedBefore(db, policy.space, new Date(now.getTime() - policy.retainDays * DAY_MS))) picked.set(id, 'retention');
        }
        if (policy.eraseDeletedAtSource) {
          for (const id of await deletedAtSource(db, policy.space)) if (!picked.has(id)) picked.set(id, 'deleted_at_source');
        }
        const targets = await storedConversations(db, [...picked.keys()]);
        const erasures: Erasure[] = targets.map((target) => ({ target, rule: picked.get(target.id)!, selectorHash: null }));
        await eraseConversations(db, erasures, now);
        out.push({
          space: policy.space,
          retention: erasures.filter((e) => e.rule === 'retention').length,
          deletedAtSource: erasures.filter((e) => e.rule === 'deleted_at_source').length,
        });
      }
      return { results: out, pending: await rewritePending(db) };
    });
    if (pending) await rewriteDatabaseFile(dbPath);
    return results;
  } finally {
    lock.release();
  }
}

/** One line naming what retention erased in each space (null when nothing). */
export function describeRetention(results: readonly RetentionResult[]): string | null {
  const erased = results.filter((r) => r.retention + r.deletedAtSource > 0);
  if (erased.length === 0) return null;
  return erased
    .map((r) => {
      const parts = [];
      if (r.retention > 0) parts.push(`${r.retention} older than the retention period`);
      if (r.deletedAtSource > 0) parts.push(`${r.deletedAtSource} deleted at the source`);
      return `space ${r.space}: erased ${parts.join(' and ')}`;
    })
    .join('; ');
}
