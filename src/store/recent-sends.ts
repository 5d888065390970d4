// When a run's requests in its last rate-limit window went, per space: the next run's limiter
// starts from them (rate-limiter.ts seedEarlierSends), so a sync started right after another
// neither sends into the window that one filled nor waits for it as for another client.
// Kept as rows, a window's worth per space, replaced at the end of every run.

import { existsSync } from 'node:fs';
import { Database } from './database.js';

const TABLE = 'rate_limit_sends';

const CREATE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  space VARCHAR NOT NULL,
  base_url VARCHAR NOT NULL,
  sent_at TIMESTAMPTZ NOT NULL,
  key_limit INTEGER
)`;

export interface RecentSends {
  space: string;
  /** epoch milliseconds */
  sentAt: number[];
  keyLimit: number | null;
}

/** Replaces the space's rows with `sentAt` (epoch ms). */
export async function saveRecentSends(db: Database, space: string, baseUrl: string, sentAt: readonly number[], keyLimit: number): Promise<void> {
  await db.run(CREATE);
  await db.run(`DELETE FROM ${TABLE} WHERE space = ?`, [space]);
  if (sentAt.length === 0) return;
  await db.run(
    `INSERT INTO ${TABLE}
     SELECT ?, ?, to_timestamp(unnest(from_json(?::JSON, '["BIGINT"]')) / 1000.0), ?`,
    [space, baseUrl, JSON.stringify(sentAt.map((t) => Math.round(t))), keyLimit],
  );
}

/** The sends stored for the space at `baseUrl`, or null when there are none. */
export async function loadRecentSends(db: Database, baseUrl: string, space: string): Promise<RecentSends | null> {
  await db.run(CREATE);
  const rows = await db.all<{ sent_at_ms: number; key_limit: number | null }>(
    `SELECT epoch_ms(sent_at)::DOUBLE AS sent_at_ms, key_limit FROM ${TABLE} WHERE base_url = ? AND space = ? ORDER BY sent_at`,
    [baseUrl, space],
  );
  if (rows.length === 0) return null;
  return { space, sentAt: rows.map((r) => Number(r.sent_at_ms)), keyLimit: rows[0]!.key_limit };
}

/**
 * Before GET /spaces has named the key's space: the sends stored for `baseUrl`, when they are one
 * space's (see peekAllRecentSends).
 */
export async function peekRecentSends(dbPath: string, baseUrl: string): Promise<RecentSends | null> {
  const spaces = (await peekAllRecentSends(dbPath)).filter((s) => s.baseUrl === baseUrl);
  return spaces.length === 1 ? spaces[0]! : null;
}

/**
 * Every space's stored sends, read before any request (GET /spaces too must not meet a window the
 * last run filled). Read-only and without waiting for a lock, so a refused key leaves the file as it was.
 */
export async function peekAllRecentSends(dbPath: string): Promise<(RecentSends & { baseUrl: string })[]> {
  if (!existsSync(dbPath)) return [];
  return Database.with(
    dbPath,
    async (db) => {
      const table = await db.one<{ n: number }>(
        `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = current_database() AND table_name = '${TABLE}'`,
      );
      if (!table?.n) return [];
      const rows = await db.all<{ space: string; base_url: string; sent_at_ms: number; key_limit: number | null }>(
        `SELECT space, base_url, epoch_ms(sent_at)::DOUBLE AS sent_at_ms, key_limit FROM ${TABLE} ORDER BY space, base_url, sent_at`,
      );
      const out = new Map<string, RecentSends & { baseUrl: string }>();
      for (const r of rows) {
        const key = `${r.space}\n${r.base_url}`;
        let s = out.get(key);
        if (!s) out.set(key, (s = { space: r.space, baseUrl: r.base_url, sentAt: [], keyLimit: r.key_limit }));
        s.sentAt.push(Number(r.sent_at_ms));
      }
      return [...out.values()];
    },
    { readOnly: true, lockTimeoutMs: 0 },
  );
}
