// `export --db-dir DIR`: each space file exported as one machine's database is into one lake
// (src/exports/ replaces only the `space=` directories of the spaces a database holds), one file
// after the other. A shard exports only the spaces it owns; the other shards write theirs.

import { resolve } from 'node:path';
import type { ExportOptions, ExportSummary } from '../../exports/export.js';
import type { ShardSpec } from '../../shared/shards.js';
import { bySpace, type PartitionKind } from '../../exports/manifest.js';
import { describeScope, scopedSpaceFiles, type ShardScope } from '../db-dir/space-files.js';
import { UsageError } from '../errors.js';

export interface DirExportSummary {
  outDir: string;
  dbDir: string;
  /** only when sharded */
  shard?: ShardScope;
  /** one export per space file written, in slug order */
  spaces: (ExportSummary & { space: string; file: string })[];
}

export interface DirExportOptions {
  dir: string;
  only: readonly string[];
  spec: ShardSpec | null;
  configFile: string | null;
  /** what every file's export is given (the spaces are the file's own) */
  export: Omit<ExportOptions, 'spaces' | 'onTable'>;
  onTable: NonNullable<ExportOptions['onTable']>;
}

/** Without a space partition every file's export would replace the others' tables whole. */
export function checkDirPartitioning(partitionBy: PartitionKind | null): void {
  if (!bySpace(partitionBy)) {
    throw new UsageError('export --db-dir writes each space file into its own space= directories — add --partition-by space (or space,day, space,month)');
  }
}

export async function exportSpaceFiles(options: DirExportOptions): Promise<DirExportSummary> {
  checkDirPartitioning(options.export.partitionBy ?? null);
  const { spaces, scope } = scopedSpaceFiles(options.dir, { only: options.only, spec: options.spec, configFile: options.configFile });
  const { exportTables } = await import('../../exports/export.js');
  const err = process.stderr;
  if (scope) err.write(`shard ${describeScope(scope)}\n`);
  const written: DirExportSummary['spaces'] = [];
  for (const { slug, path } of spaces) {
    if (path === null) {
      err.write(`space ${slug}: no file yet, nothing to export (its shard's first sync creates it)\n`);
      continue;
    }
    err.write(`space ${slug} (${path}):\n`);
    const summary = await exportTables(path, { ...options.export, onTable: options.onTable });
    written.push({ space: slug, file: path, ...summary });
  }
  return { outDir: resolve(options.export.outDir), dbDir: options.dir, ...(scope ? { shard: scope } : {}), spaces: written };
}
