// `convoduck export`: the public tables as Parquet (or CSV) files that DuckDB, Spark, Trino and
// BigQuery read as they are, optionally Hive-partitioned by the conversation's start
// (`day=2026-11-01/`, `month=2026-11/`). DuckDB's COPY writes every file; this module only
// decides what goes where, stages the files, and swaps them in once all tables are written.
//
// Layout: OUT/<table>/<table>.<ext>, or OUT/<table>/<day|month>=<value>/data_0.<ext> for the
// conversation tables when partitioned, plus OUT/convoduck-export.json describing the export.
// An export with --since into partitioned tables of an earlier export replaces only the
// partitions it wrote, so a daily `--since 2d --partition-by day` keeps a full, current copy.
// Nothing outside what an export rewrites is ever removed: a run that would mix layouts or
// shrink an earlier file is refused before the directory is touched (layout.ts).

import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createOutputDir } from '../shared/output-dir.js';
import { InvalidInputError } from '../shared/errors.js';
import { formatInstant, isoUtcSql } from '../shared/time.js';
import type { Database } from '../store/database.js';
import { DERIVED_CONVERSATION_TABLES, PUBLIC_TABLES } from '../store/schema.js';
import { limitToSpaces, storedSpaces } from '../store/space-scope.js';
import { checkLayout } from './layout.js';
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  NULL_PARTITION,
  bySpace,
  partitionRange,
  readManifest,
  timeUnitOf,
  type ExportFormat,
  type Manifest,
  type ManifestPartition,
  type PartitionKind,
  type TimeUnit,
} from './manifest.js';
import { withReadOnlyDatabase } from './read.js';

export { EXPORT_FORMATS, MANIFEST_FILE, PARTITION_KINDS, type ExportFormat, type PartitionKind } from './manifest.js';
export type PublicTable = (typeof PUBLIC_TABLES)[number];

const STAGING_PREFIX = '.convoduck-staging-';

/** Tables whose rows belong to a conversation: filtered by --since and partitioned. */
const CONVERSATION_TABLES: readonly string[] = DERIVED_CONVERSATION_TABLES;

export interface ExportOptions {
  outDir: string;
  format?: ExportFormat;
  /** default: every public table */
  tables?: readonly PublicTable[];
  partitionBy?: PartitionKind | null;
  /** only rows of conversations started at or after this (dimension and sync tables: all rows) */
  since?: Date | null;
  /** only these spaces' rows; a space-partitioned export then replaces only their directories */
  spaces?: readonly string[];
  lockTimeoutMs?: number;
  onWait?: () => void;
  /** called after each table has been written */
  onTable?: (table: TableExport) => void;
  now?: () => Date;
}

export interface TableExport {
  table: PublicTable;
  rows: number;
  /** the table's directory, absolute */
  path: string;
  /** files written, relative to the export directory */
  files: string[];
  /** partition column (`day`/`month`), or null when the table was written as one file */
  partitionBy: PartitionKind | null;
  /** whether --since filtered the table's rows */
  filtered: boolean;
  /** partitions already in the directory that this export kept (an incremental export) */
  keptPartitions: number;
}

export interface ExportSummary {
  outDir: string;
  format: ExportFormat;
  partitionBy: PartitionKind | null;
  /** the --since actually applied (rounded down to the partition's start when partitioned) */
  since: string | null;
  sinceRequested: string | null;
  exportedAt: string;
  tables: TableExport[];
}

const EXTENSIONS: Record<ExportFormat, string> = { parquet: 'parquet', csv: 'csv' };

/** The start of the UTC day or month holding `date`, so that every partition written is whole (`date` itself for `space`). */
export function partitionStart(date: Date, kind: PartitionKind): Date {
  const unit = timeUnitOf(kind);
  if (unit === null) return date;
  return unit === 'day'
    ? new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()))
    : new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1));
}

export function parseTableList(value: string): PublicTable[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidInputError(`--tables is empty: name tables from ${PUBLIC_TABLES.join(', ')}`);
  const unknown = names.filter((n) => !(PUBLIC_TABLES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new InvalidInputError(`--tables: no public table ${unknown.join(', ')}; choose from ${PUBLIC_TABLES.join(', ')}`);
  }
  return PUBLIC_TABLES.filter((t) => names.includes(t));
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Creates OUT (0700) or checks that an existing OUT is empty or an earlier export. */
function prepareOutDir(outDir: string, shownDir: string): Manifest | null {
  if (!existsSync(outDir)) {
    createOutputDir(outDir, 0o700);
    chmodSync(outDir, 0o700);
    return null;
  }
  if (!statSync(outDir).isDirectory()) {
    throw new InvalidInputError(`--out ${outDir} is a file: pass a directory (it is created if missing)`);
  }
  const manifest = readManifest(outDir, shownDir);
  const entries = readdirSync(outDir).filter((e) => !e.startsWith(STAGING_PREFIX));
  if (!manifest && entries.length > 0) {
    throw new InvalidInputError(
      `--out ${outDir} is not empty and holds no earlier convoduck export (${MANIFEST_FILE}): ` +
        `pass a new or empty directory`,
    );
  }
  return manifest;
}

/** Owner-only modes on everything under `path` (exports hold transcripts: personal data). */
function restrictModes(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    chmodSync(path, 0o700);
    for (const entry of readdirSync(path)) restrictModes(join(path, entry));
  } else {
    chmodSync(path, 0o600);
  }
}

function setUmask(mask: number): number | null {
  try {
    return process.umask(mask);
  } catch {
    return null; // worker threads cannot change the umask: modes are fixed after writing instead
  }
}

/** The table's columns whose type is `type`, or starts with it (`TIMESTAMP` matches both kinds). */
async function columnsOfType(db: Database, table: string, type: string): Promise<string[]> {
  const rows = await db.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ? AND starts_with(data_type, ?)
     ORDER BY column_index`,
    [table, type],
  );
  return rows.map((r) => r.column_name);
}

interface Plan {
  table: PublicTable;
  partitionBy: PartitionKind | null;
  filtered: boolean;
}

async function copyTable(
  db: Database,
  plan: Plan,
  stagingDir: string,
  format: ExportFormat,
  since: Date | null,
): Promise<{ rows: number; files: string[] }> {
  const { table, partitionBy } = plan;
  const unit = timeUnitOf(partitionBy);
  const isChild = CONVERSATION_TABLES.includes(table) && table !== 'conversations';
  // a table without a space column is partitioned by its parent's space (space-scope.ts's rule)
  const space = bySpace(partitionBy) ? await spaceSource(db, table) : null;
  const needsJoin = isChild && (unit !== null || plan.filtered || space === 'conversation');
  const startedAt = isChild ? 'c.started_at' : 't.started_at';
  // JSON columns go out as plain strings: every reader understands a UTF-8 string column,
  // not every one the Parquet JSON annotation.
  const replaced = (await columnsOfType(db, table, 'JSON')).map((c) => `t."${c}"::VARCHAR AS "${c}"`);
  if (format === 'csv') {
    // CSV timestamps as every text output prints them (Parquet keeps its native types). The
    // session is UTC, so a TIMESTAMP without zone is read as UTC.
    for (const c of await columnsOfType(db, table, 'TIMESTAMP')) {
      replaced.push(`${isoUtcSql(`t."${c}"::TIMESTAMPTZ`)} AS "${c}"`);
    }
  }
  const star = replaced.length > 0 ? `t.* REPLACE (${replaced.join(', ')})` : 't.*';
  const spaceExpr = { own: '', conversation: ', c.space AS space', agent: ', a.space AS space', run: ', r.space AS space' };
  const partitionExpr =
    (space ? spaceExpr[space] : '') +
    (unit === 'day'
      ? `, strftime(${startedAt}, '%Y-%m-%d') AS day`
      : unit === 'month'
        ? `, strftime(${startedAt}, '%Y-%m') AS month`
        : '');
  const select =
    `SELECT ${star}${partitionExpr} FROM ${table} t` +
    (needsJoin ? ` LEFT JOIN conversations c ON c.id = t.conversation_id` : '') +
    (space === 'agent' ? ` LEFT JOIN agents a ON a.id = t.agent_id` : '') +
    (space === 'run' ? ` LEFT JOIN sync_runs r ON r.run_id = t.run_id` : '') +
    (plan.filtered ? ` WHERE ${startedAt} >= ?::TIMESTAMPTZ` : '');
  const partitionColumns = [...(space ? ['space'] : []), ...(unit ? [unit] : [])];

  const tableDir = join(stagingDir, table);
  const options = [
    format === 'parquet' ? 'FORMAT parquet' : 'FORMAT csv, HEADER',
    'RETURN_FILES',
  ];
  let target: string;
  if (partitionBy) {
    target = tableDir;
    options.push(`PARTITION_BY (${partitionColumns.join(', ')})`, 'OVERWRITE_OR_IGNORE');
  } else {
    mkdirSync(tableDir, { recursive: true, mode: 0o700 });
    target = join(tableDir, `${table}.${EXTENSIONS[format]}`);
  }
  const params = plan.filtered && since ? [since.toISOString()] : [];
  const reader = await db.connection.runAndReadAll(
    `COPY (${select}) TO ${sqlString(target)} (${options.join(', ')})`,
    params,
  );
  const row = reader.getRowsJS()[0] ?? [];
  const rows = Number(row[0] ?? 0);
  const files = Array.isArray(row[1]) ? (row[1] as unknown[]).map((f) => relative(stagingDir, String(f))) : [];
  if (partitionBy) mkdirSync(tableDir, { recursive: true, mode: 0o700 }); // no rows: still a (empty) table directory
  return { rows, files: files.sort() };
}

/** Where a table's rows get their space: its own column, or its conversation's, agent's or run's. */
async function spaceSource(db: Database, table: string): Promise<'own' | 'conversation' | 'agent' | 'run'> {
  const rows = await db.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`,
    [table],
  );
  const columns = new Set(rows.map((r) => r.column_name));
  if (columns.has('space')) return 'own';
  if (columns.has('run_id')) return 'run';
  if (columns.has('conversation_id')) return 'conversation';
  if (columns.has('agent_id')) return 'agent';
  throw new InvalidInputError(`table ${table} has no space to partition by: leave it out with --tables`);
}

/** The partition directory value (`2026-11-01`, `2026-11`) holding `date`. */
function partitionValue(date: Date, kind: TimeUnit): string {
  return date.toISOString().slice(0, kind === 'day' ? 10 : 7);
}

/**
 * Moves a staged table into place: whole, or (incremental) partition by partition. An
 * incremental export owns every partition from `from` on: those it wrote replace the old
 * ones, and old ones it did not write (no rows any more) are removed.
 */
function installTable(stagedDir: string, finalDir: string, merge: { kind: TimeUnit; from: string } | null): number {
  if (!merge || !existsSync(finalDir)) {
    const old = `${stagedDir}.old`;
    if (existsSync(finalDir)) renameSync(finalDir, old);
    renameSync(stagedDir, finalDir);
    rmSync(old, { recursive: true, force: true });
    return 0;
  }
  const written = new Set(readdirSync(stagedDir));
  const prefix = `${merge.kind}=`;
  for (const part of readdirSync(finalDir)) {
    const value = part.startsWith(prefix) ? part.slice(prefix.length) : null;
    const covered = value !== null && value !== NULL_PARTITION && value >= merge.from;
    if (covered || written.has(part)) rmSync(join(finalDir, part), { recursive: true, force: true });
  }
  for (const part of written) renameSync(join(stagedDir, part), join(finalDir, part));
  rmSync(stagedDir, { recursive: true, force: true });
  return readdirSync(finalDir).filter((p) => !written.has(p)).length;
}

/**
 * A space-partitioned table: each `space=<slug>/` this export covers is installed as installTable
 * does for a whole table (a covered space without rows now loses what it had in the range
 * written); the directories of other spaces (another machine's, or left out by --space) are kept.
 */
function installSpaces(stagedDir: string, finalDir: string, merge: { kind: TimeUnit; from: string } | null, covered: readonly string[]): number {
  mkdirSync(finalDir, { recursive: true, mode: 0o700 });
  mkdirSync(stagedDir, { recursive: true, mode: 0o700 });
  const written = readdirSync(stagedDir);
  let kept = 0;
  for (const dirName of new Set([...written, ...covered])) {
    const staged = join(stagedDir, dirName);
    const final = join(finalDir, dirName);
    if (!written.includes(dirName)) {
      if (!existsSync(final)) continue;
      if (!merge) {
        rmSync(final, { recursive: true, force: true });
        continue;
      }
      mkdirSync(staged, { mode: 0o700 }); // nothing written: the range is emptied, the rest kept
    }
    kept += installTable(staged, final, merge);
  }
  rmSync(stagedDir, { recursive: true, force: true });
  return kept;
}

/**
 * The source range of every partition now in `finalDir`: those just written (`files`) with
 * this export's time; kept ones as the earlier manifest recorded them (or, from a version 1
 * manifest, from their name).
 */
function partitionSources(
  finalDir: string,
  kind: TimeUnit,
  spaces: boolean,
  files: readonly string[],
  exportedAt: string,
  previous: { exported_at: string; partitions?: Record<string, ManifestPartition> } | undefined,
): Record<string, ManifestPartition> {
  // `day=…`, or `space=…/day=…`: the directories between the table's and the file
  const written = new Set(files.map((f) => f.split('/').slice(1, -1).join('/')));
  const parts = spaces
    ? readdirSync(finalDir).flatMap((s) => (isDirectory(join(finalDir, s)) ? readdirSync(join(finalDir, s)).map((p) => `${s}/${p}`) : []))
    : readdirSync(finalDir);
  const sources: Record<string, ManifestPartition> = {};
  for (const part of parts.sort()) {
    const name = part.split('/').pop()!;
    const range = written.has(part)
      ? partitionRange(name, kind, exportedAt)
      : (previous?.partitions?.[part] ?? partitionRange(name, kind, previous?.exported_at ?? null));
    if (range) sources[part] = range;
  }
  return sources;
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The earlier of two lower bounds, where null means "from the beginning". */
function earliest(a: string | null, b: string | null): string | null {
  if (a === null || b === null) return null;
  return new Date(a) <= new Date(b) ? a : b;
}

export async function exportTables(dbPath: string, options: ExportOptions): Promise<ExportSummary> {
  const outDir = resolve(options.outDir);
  const format = options.format ?? 'parquet';
  const partitionBy = options.partitionBy ?? null;
  const tables = options.tables ?? PUBLIC_TABLES;
  const since = options.since ? (partitionBy ? partitionStart(options.since, partitionBy) : options.since) : null;
  const exportedAt = formatInstant(options.now?.() ?? new Date());

  const previousUmask = setUmask(0o077);
  try {
    const manifest = prepareOutDir(outDir, options.outDir);
    // Refusals come before the staging directory: a refused export leaves OUT as it was.
    checkLayout(outDir, options.outDir, manifest, {
      format,
      partition_by: partitionBy,
      tables,
      conversationTables: CONVERSATION_TABLES,
      since,
    });
    const stagingDir = join(outDir, `${STAGING_PREFIX}${process.pid}`);
    rmSync(stagingDir, { recursive: true, force: true });
    mkdirSync(stagingDir, { mode: 0o700 });
    try {
      // Partitioned by space, every table is (the others by space alone); by time, the conversation tables only.
      const plans: Plan[] = tables.map((table) => {
        const conversational = CONVERSATION_TABLES.includes(table);
        const partition = conversational ? partitionBy : bySpace(partitionBy) ? 'space' : null;
        return { table, partitionBy: partition, filtered: conversational && since !== null };
      });
      /** the `space=` directories this export owns: its spaces' (and, reading them all, the one of rows without a space) */
      let covered: string[] = [];

      // 1. Every table into the staging directory, under one read lock (one consistent state).
      const copied = await withReadOnlyDatabase(
        dbPath,
        { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait },
        async (db) => {
          rmSync(stagingDir, { recursive: true, force: true }); // a retried attempt starts clean
          mkdirSync(stagingDir, { mode: 0o700 });
          const only = options.spaces ?? [];
          await limitToSpaces(db, only);
          covered = [...(await storedSpaces(db)), ...(only.length > 0 ? [] : [NULL_PARTITION])].map((s) => `space=${s}`);
          const out = [];
          for (const plan of plans) out.push({ plan, ...(await copyTable(db, plan, stagingDir, format, since)) });
          return out;
        },
      );

      // 2. Swap them in. Partitioned, filtered tables already in OUT (same layout: checked
      // above) are merged: only the partitions from --since on are replaced.
      const results: TableExport[] = [];
      const nextManifest: Manifest = {
        generator: 'convoduck',
        manifest_version: MANIFEST_VERSION,
        exported_at: exportedAt,
        database: resolve(dbPath),
        layout: { format, partition_by: partitionBy },
        tables: { ...(manifest?.tables ?? {}) },
      };
      for (const { plan, rows, files } of copied) {
        const previous = manifest?.tables[plan.table];
        const finalDir = join(outDir, plan.table);
        const unit = timeUnitOf(plan.partitionBy);
        const spaces = bySpace(plan.partitionBy);
        const merge = plan.filtered && unit !== null && since !== null && existsSync(finalDir);
        const range = merge && unit && since ? { kind: unit, from: partitionValue(since, unit) } : null;
        const keptPartitions = spaces
          ? installSpaces(join(stagingDir, plan.table), finalDir, range, covered)
          : installTable(join(stagingDir, plan.table), finalDir, range);
        restrictModes(finalDir);
        const written = plan.filtered ? (since?.toISOString() ?? null) : null;
        nextManifest.tables[plan.table] = {
          format,
          partition_by: plan.partitionBy,
          since: merge ? earliest(previous?.since ?? null, written) : written,
          rows_written: rows,
          exported_at: exportedAt,
          // (other spaces' partitions are kept as they were: their ranges too)
          ...(unit
            ? { partitions: partitionSources(finalDir, unit, spaces, files, exportedAt, merge || spaces ? previous : undefined) }
            : {}),
        };
        const result: TableExport = {
          table: plan.table,
          rows,
          path: finalDir,
          files,
          partitionBy: plan.partitionBy,
          filtered: plan.filtered,
          keptPartitions,
        };
        results.push(result);
        options.onTable?.(result);
      }
      const manifestPath = join(outDir, MANIFEST_FILE);
      writeFileSync(manifestPath, JSON.stringify(nextManifest, null, 2) + '\n', { mode: 0o600 });
      chmodSync(manifestPath, 0o600);
      return {
        outDir,
        format,
        partitionBy,
        since: since ? formatInstant(since) : null,
        sinceRequested: options.since ? formatInstant(options.since) : null,
        exportedAt: formatInstant(new Date(exportedAt)),
        tables: results,
      };
    } finally {
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } finally {
    if (previousUmask !== null) setUmask(previousUmask);
  }
}
