// OUT/convoduck-export.json: what an export directory holds. Version 2 records the folder's
// layout (format, partitioning) and, per partition, the range of conversation starts it holds;
// version 1 manifests (per-table format and partitioning only) are still read.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';
import { formatInstant } from '../shared/time.js';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** How the tables are split into Hive partitions: by the conversation's start, by space, or both (space first). */
export const PARTITION_KINDS = ['day', 'month', 'space', 'space,day', 'space,month'] as const;
export type PartitionKind = (typeof PARTITION_KINDS)[number];
export type TimeUnit = 'day' | 'month';

/** The time part of a partitioning (`day`, `month`), or null for `space` alone. */
export function timeUnitOf(kind: PartitionKind | null): TimeUnit | null {
  if (kind === null || kind === 'space') return null;
  return kind.endsWith('month') ? 'month' : 'day';
}

/** Whether a partitioning puts each space in its own `space=<slug>/` directory. */
export function bySpace(kind: PartitionKind | null): boolean {
  return kind !== null && kind.startsWith('space');
}

/** Written into every export directory; its presence marks the directory as ours to update. */
export const MANIFEST_FILE = 'convoduck-export.json';
export const MANIFEST_VERSION = 2;
/** Hive's directory value for a NULL partition key (conversations without a start time). */
export const NULL_PARTITION = '__HIVE_DEFAULT_PARTITION__';

export interface ExportLayout {
  format: ExportFormat;
  /** partitioning of the conversation tables; null: one file per table */
  partition_by: PartitionKind | null;
}

/** The conversations whose rows a partition holds: started in [from, before), or (both null) without a start. */
export interface ManifestPartition {
  started_from: string | null;
  started_before: string | null;
  /** when this partition was last written (null: unknown, carried over from a version 1 manifest) */
  exported_at: string | null;
}

export interface ManifestTable {
  format: ExportFormat;
  partition_by: PartitionKind | null;
  /** rows of conversations started since then are in the files (null: all rows) */
  since: string | null;
  /** rows written by the last export (an incremental one replaced only some partitions) */
  rows_written: number;
  exported_at: string;
  /** partition directory (`day=2026-11-01`) → the source range it holds; version 2, partitioned tables */
  partitions?: Record<string, ManifestPartition>;
}

export interface Manifest {
  generator: 'convoduck';
  manifest_version: number;
  exported_at: string;
  database: string;
  /** version 2; for a version 1 manifest the layout is inferred from its tables and the folder */
  layout?: ExportLayout;
  tables: Record<string, ManifestTable>;
  /** written with --redact (src/exports/redaction.ts); absent: not redacted */
  redaction?: { key_check: string };
}

/** The manifest in `outDir`, null when there is none or it is not ours; refuses one from a newer convoduck. */
export function readManifest(outDir: string, shownDir: string): Manifest | null {
  const path = join(outDir, MANIFEST_FILE);
  if (!existsSync(path)) return null;
  let parsed: Manifest;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch {
    return null;
  }
  if (parsed?.generator !== 'convoduck' || typeof parsed.tables !== 'object' || parsed.tables === null) return null;
  if (typeof parsed.manifest_version === 'number' && parsed.manifest_version > MANIFEST_VERSION) {
    throw new InvalidInputError(
      `${shownDir} was written by a newer convoduck (${MANIFEST_FILE} version ${parsed.manifest_version}) — ` +
        `upgrade convoduck, or export into a new folder`,
    );
  }
  return parsed;
}

/** `day=2026-11-01` → the range of starts it holds; null for a name that is no partition of `kind`. */
export function partitionRange(dirName: string, kind: TimeUnit, exportedAt: string | null): ManifestPartition | null {
  const prefix = `${kind}=`;
  if (!dirName.startsWith(prefix)) return null;
  const value = dirName.slice(prefix.length);
  if (value === NULL_PARTITION) return { started_from: null, started_before: null, exported_at: exportedAt };
  const match = kind === 'day' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : /^(\d{4})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, kind === 'day' ? Number(match[3]) : 1];
  const from = new Date(Date.UTC(year, month, day));
  const before = kind === 'day' ? new Date(Date.UTC(year, month, day + 1)) : new Date(Date.UTC(year, month + 1, 1));
  return { started_from: formatInstant(from), started_before: formatInstant(before), exported_at: exportedAt };
}
