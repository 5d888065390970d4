// Which layout an export directory already holds, and whether a new export may write into it.
// Every refusal happens before anything in the directory is touched: an export never mixes
// layouts (its readers glob one format and one partition column) and never replaces files
// holding rows it does not write again.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportLayout,
  type Manifest,
  type PartitionKind,
  timeUnitOf,
} from './manifest.js';

export interface ExportRequest extends ExportLayout {
  /** the tables this export writes */
  tables: readonly string[];
  /** the tables partitioned by (and filtered on) their conversation's start */
  conversationTables: readonly string[];
  since: Date | null;
}

/** One piece of evidence about the layout: where it was seen, and what it says. */
interface Observation {
  source: string;
  format?: ExportFormat;
  /** undefined: says nothing about partitioning (a dimension table) */
  partition?: PartitionKind | null;
}

const FORMAT_NAMES: Record<ExportFormat, string> = { parquet: 'Parquet', csv: 'CSV' };

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function formatOf(fileName: string): ExportFormat | undefined {
  return EXPORT_FORMATS.find((f) => fileName.endsWith(`.${f}`));
}

const TIME_UNITS = ['day', 'month'] as const;

/** The partitioning a `space=<slug>/` directory shows (by time inside it, or files), and the formats of its files. */
function observeSpaceDir(path: string): { partition: PartitionKind; formats: ExportFormat[] } {
  const inner = readdirSync(path);
  const unit = TIME_UNITS.find((u) => inner.some((e) => e.startsWith(`${u}=`) && isDirectory(join(path, e))));
  const files = unit ? inner.filter((e) => isDirectory(join(path, e))).flatMap((e) => readdirSync(join(path, e))) : inner;
  return { partition: unit ? `space,${unit}` : 'space', formats: files.map(formatOf).filter((f) => f !== undefined) };
}

/** What the files of one table directory say: a flat `<table>.<ext>`, `day=`/`month=` partitions, or `space=` ones. */
function observeTableDir(tableDir: string, table: string, conversational: boolean): Observation[] {
  const seen: Observation[] = [];
  for (const entry of readdirSync(tableDir)) {
    const path = join(tableDir, entry);
    if (entry.startsWith('space=') && isDirectory(path)) {
      const { partition, formats } = observeSpaceDir(path);
      seen.push({ source: `${table}/${entry}`, partition: conversational ? partition : undefined, format: formats[0] });
      for (const format of formats.slice(1)) seen.push({ source: `${table}/${entry}`, format });
      continue;
    }
    const kind = TIME_UNITS.find((k) => entry.startsWith(`${k}=`));
    if (kind && isDirectory(path)) {
      const formats = readdirSync(path).map(formatOf).filter((f) => f !== undefined);
      seen.push({ source: `${table}/${entry}`, partition: kind, format: formats[0] });
      for (const format of formats.slice(1)) seen.push({ source: `${table}/${entry}`, format });
    } else if (!isDirectory(path) && entry.startsWith(`${table}.`) && formatOf(entry)) {
      seen.push({ source: `${table}/${entry}`, format: formatOf(entry), partition: conversational ? null : undefined });
    }
  }
  return seen;
}

function observe(outDir: string, manifest: Manifest | null, conversationTables: readonly string[]): Observation[] {
  const seen: Observation[] = [];
  if (manifest?.layout) seen.push({ source: 'manifest', format: manifest.layout.format, partition: manifest.layout.partition_by });
  for (const [table, entry] of Object.entries(manifest?.tables ?? {})) {
    const conversational = conversationTables.includes(table);
    seen.push({ source: `manifest ${table}`, format: entry.format, partition: conversational ? entry.partition_by : undefined });
  }
  // Every table directory, listed in the manifest or not (hidden ones are staging directories).
  for (const table of readdirSync(outDir)) {
    const tableDir = join(outDir, table);
    if (!table.startsWith('.') && isDirectory(tableDir)) {
      seen.push(...observeTableDir(tableDir, table, conversationTables.includes(table)));
    }
  }
  return seen;
}

function partitionWords(partition: PartitionKind | null): string {
  return partition ? `${partition}-partitioned` : 'unpartitioned';
}

function article(word: string): string {
  return /^[aeiouAEIOU]/.test(word) ? `an ${word}` : `a ${word}`;
}

/**
 * The layout the directory holds (null: nothing that says), after refusing a directory whose
 * tables disagree with one another or with the layout `request` would write.
 */
export function checkLayout(outDir: string, shownDir: string, manifest: Manifest | null, request: ExportRequest): ExportLayout | null {
  const seen = observe(outDir, manifest, request.conversationTables);
  const formats = [...new Set(seen.flatMap((o) => (o.format ? [o.format] : [])))];
  const partitions = [...new Set(seen.flatMap((o) => (o.partition !== undefined ? [o.partition] : [])))];
  if (formats.length > 1 || partitions.length > 1) {
    const kinds = [
      ...formats.map((f) => FORMAT_NAMES[f]),
      ...partitions.map(partitionWords),
    ];
    throw new InvalidInputError(
      `${shownDir} holds tables of different layouts (${kinds.join(', ')}) — export into a new folder`,
    );
  }
  const [format] = formats;
  const partition = partitions.length === 1 ? partitions[0]! : undefined;
  const wrongFormat = format !== undefined && format !== request.format;
  const wrongPartition = partition !== undefined && partition !== request.partition_by;
  if (wrongFormat || wrongPartition) {
    const words = [...(wrongPartition ? [partitionWords(partition)] : []), ...(wrongFormat ? [FORMAT_NAMES[format]] : [])];
    const flags = [
      ...(wrongFormat ? [`--format ${format}`] : []),
      ...(wrongPartition && partition ? [`--partition-by ${partition}`] : []),
    ];
    const fix = [
      ...(flags.length > 0 ? [`pass ${flags.join(' ')}`] : []),
      ...(wrongPartition && !partition ? ['leave out --partition-by'] : []),
    ].join(' and ');
    throw new InvalidInputError(`${shownDir} holds ${article(words.join(' '))} export — ${fix}, or export into a new folder`);
  }
  checkFlatSince(outDir, shownDir, manifest, request);
  return format !== undefined ? { format, partition_by: partition ?? request.partition_by } : null;
}

/**
 * An unpartitioned export with --since writes one file per table holding only the recent
 * rows: it may replace an earlier file only when that file held no rows from before --since.
 */
function checkFlatSince(outDir: string, shownDir: string, manifest: Manifest | null, request: ExportRequest): void {
  if (request.since === null || timeUnitOf(request.partition_by) !== null) return;
  const since = request.since;
  const shrunk = request.tables.filter((table) => {
    if (!request.conversationTables.includes(table)) return false;
    const tableDir = join(outDir, table);
    if (!isDirectory(tableDir) || readdirSync(tableDir).length === 0) return false;
    const earlier = manifest?.tables[table]?.since ?? null;
    return earlier === null || new Date(earlier) < since;
  });
  if (shrunk.length === 0) return;
  throw new InvalidInputError(
    `${shownDir} holds earlier rows of ${shrunk.join(', ')} that --since without --partition-by would drop ` +
      `(each table is one file, replaced whole) — export without --since, ` +
      `or use --partition-by day|month with --since in a new folder for incremental exports`,
  );
}
