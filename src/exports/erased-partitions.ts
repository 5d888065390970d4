// An export folder written before an erasure still holds the erased conversations' rows. Which
// time partitions hold them is read from the folder's own files (not from what the database
// remembers), so an export rewrites exactly those partitions, and no others, beside its --since.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../store/database.js';
import { CONVERSATION_TABLES } from './copy-table.js';
import { timeUnitOf, type Manifest } from './manifest.js';
import { sqlText } from '../store/sql.js';

const PARTITION_DIR = /(?:^|\/)(?:day|month)=([^/]+)\//;

/**
 * The time partition values (`2026-11-03`, `2026-11`, or NULL_PARTITION) of the folder's
 * conversation tables whose files hold a row of a conversation in the `erasures` table; empty
 * when nothing was erased or the folder is not partitioned by time.
 */
export async function partitionsHoldingErased(db: Database, outDir: string, manifest: Manifest | null): Promise<Set<string>> {
  const stale = new Set<string>();
  const layout = manifest?.layout;
  if (!manifest || !layout || timeUnitOf(layout.partition_by) === null) return stale;
  const erased = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM erasures`);
  if (!erased?.n) return stale;
  const extension = layout.format === 'parquet' ? 'parquet' : 'csv';
  for (const table of Object.keys(manifest.tables).filter((t) => CONVERSATION_TABLES.includes(t))) {
    if (!existsSync(join(outDir, table))) continue;
    const files = sqlText(join(outDir, table, '**', `*.${extension}`));
    const found = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM glob(${files})`);
    if (!found?.n) continue;
    const idColumn = table === 'conversations' ? 'id' : 'conversation_id';
    const reader =
      layout.format === 'parquet'
        ? `read_parquet(${files}, filename = true, hive_partitioning = false, union_by_name = true)`
        : `read_csv(${files}, filename = true, hive_partitioning = false, union_by_name = true, header = true, all_varchar = true)`;
    const rows = await db.all<{ filename: string }>(
      `SELECT DISTINCT filename FROM ${reader} WHERE "${idColumn}" IN (SELECT id FROM erasures)`,
    );
    for (const { filename } of rows) {
      const value = PARTITION_DIR.exec(filename.slice(join(outDir, table).length))?.[1];
      if (value !== undefined) stale.add(value);
    }
  }
  return stale;
}
