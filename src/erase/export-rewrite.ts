// `forget --out DIR`: an export folder written before the erasure still holds the erased
// conversations' rows. It is exported again in its own layout (format, partitioning, tables, as
// its manifest says): partitioned by day or month, from the partition of the earliest erased
// conversation on (every partition that can hold one is replaced, later ones too); unpartitioned,
// whole. Partitioned by space, only the erased conversations' spaces' directories are replaced.

import { existsSync } from 'node:fs';
import { exportTables, type ExportSummary, type PublicTable } from '../exports/export.js';
import { readManifest, timeUnitOf } from '../exports/manifest.js';
import { checkRedaction } from '../exports/redaction.js';
import { loadRedactionKey, type Redaction } from '../redact/index.js';
import { InvalidInputError } from '../shared/errors.js';
import { PUBLIC_TABLES } from '../store/schema.js';
import type { ErasureTarget } from './select.js';

/** Checks before anything is erased that DIR is an export folder convoduck can rewrite (a redacted one: with its key). */
export function checkExportFolder(outDir: string): void {
  const manifest = existsSync(outDir) ? readManifest(outDir, outDir) : null;
  if (manifest?.layout === undefined) {
    throw new InvalidInputError(`forget --out ${outDir} is no convoduck export folder (no convoduck-export.json of version 2) — pass the folder an earlier \`convoduck export --out\` wrote`);
  }
  checkRedaction(manifest, redactionOf(outDir), outDir);
}

/** A redacted export is rewritten redacted, with the key from the environment. */
function redactionOf(outDir: string): Redaction | null {
  return readManifest(outDir, outDir)?.redaction ? { key: loadRedactionKey() } : null;
}

export async function rewriteExport(dbPath: string, outDir: string, erased: readonly ErasureTarget[]): Promise<ExportSummary | null> {
  if (erased.length === 0) return null;
  const manifest = readManifest(outDir, outDir)!;
  const layout = manifest.layout!;
  const tables = PUBLIC_TABLES.filter((t) => t in manifest.tables) as PublicTable[];
  const starts = erased.map((e) => e.startedAt);
  // a conversation without a start sits in the NULL partition: only a whole export reaches it
  const since = timeUnitOf(layout.partition_by) === null || starts.some((s) => s === null) ? null : new Date(Math.min(...starts.map((s) => s!.getTime())));
  const spaces = layout.partition_by?.startsWith('space') ? [...new Set(erased.map((e) => e.space).filter((s): s is string => s !== null))] : undefined;
  const redaction = redactionOf(outDir);
  return exportTables(dbPath, { outDir, format: layout.format, partitionBy: layout.partition_by, tables, since, redaction, ...(spaces ? { spaces } : {}) });
}
