// What the database sync writes knows about a count off: read only when a page ends the listing
// short, as the file is (never upgraded), and never waited on: a file a sync holds is not read.

import { existsSync } from 'node:fs';
import { countOffRecord, type PageRead } from '../store/count-excess.js';
import { Database } from '../store/database.js';
import type { CountOffSeen } from './count-finding.js';

export async function readCountOff(dbPath: string, space: string, pages: readonly PageRead[]): Promise<CountOffSeen> {
  if (!existsSync(dbPath)) return { kind: 'no-db' };
  try {
    const record = await Database.with(dbPath, (db) => countOffRecord(db, space, pages), { readOnly: true, asItIs: true, lockTimeoutMs: 0 });
    return { kind: 'read', db: dbPath, record };
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
    // read as it is, an older convoduck's file has no such column: a sync upgrades it
    const reason = /server_count_excess/.test(message) ? 'its schema predates sync_runs.server_count_excess; the next sync upgrades it' : message;
    return { kind: 'unread', db: dbPath, reason };
  }
}

/** A page of list items as the database is asked about it: its ids and the span of their started_at. */
export function pageRead(items: readonly unknown[]): PageRead | null {
  const ids = new Set<string>();
  let fromMs = Infinity;
  let toMs = -Infinity;
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, started_at: started } = item as { id?: unknown; started_at?: unknown };
    if (typeof id === 'string') ids.add(id);
    const ms = typeof started === 'string' ? Date.parse(started) : NaN;
    if (Number.isFinite(ms)) {
      fromMs = Math.min(fromMs, ms);
      toMs = Math.max(toMs, ms);
    }
  }
  return ids.size > 0 && fromMs <= toMs ? { ids, fromMs, toMs } : null;
}
