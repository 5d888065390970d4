// `forget --out DIR`: an export folder written before the erasure still holds the erased
// conversations' rows. It is exported again in its own layout (format, partitioning, tables, as
// its manifest says): partitioned by day or month, only the partitions whose files hold an erased
// conversation (the other tables whole); unpartitioned, whole; partitioned by space alone, the
// erased conversations' spaces' directories.

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
  const redaction = redactionOf(outDir);
  const base = { outDir, format: layout.format, partitionBy: layout.partition_by, tables, redaction };
  if (timeUnitOf(layout.partition_by) !== null) return exportTables(dbPath, { ...base, erasedOnly: true });
  const spaces = layout.partition_by === 'space' ? [...new Set(erased.map((e) => e.space).filter((s): s is string => s !== null))] : undefined;
  return exportTables(dbPath, { ...base, ...(spaces ? { spaces } : {}) });
}
