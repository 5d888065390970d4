// `convoduck export`: the public tables as Parquet (or CSV) files that DuckDB, Spark, Trino and
// BigQuery read as they are, optionally Hive-partitioned by the conversation's start
// (`day=2026-11-01/`, `month=2026-11/`). DuckDB's COPY writes every file; this module only
// decides what goes where, stages the files (copy-table.ts), and swaps them in once all tables
// are written (install.ts).
//
// Layout: OUT/<table>/<table>.<ext>, or OUT/<table>/<day|month>=<value>/data_0.<ext> for the
// conversation tables when partitioned, plus OUT/convoduck-export.json describing the export.
// An export with --since into partitioned tables of an earlier export replaces only the
// partitions it wrote, so a daily `--since 2d --partition-by day` keeps a full, current copy.
// Nothing outside what an export rewrites is ever removed: a run that would mix layouts or
// shrink an earlier file is refused before the directory is touched (layout.ts).

import { chmodSync, existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { createOutputDir } from '../shared/output-dir.js';
import { InvalidInputError } from '../shared/errors.js';
import { formatInstant } from '../shared/time.js';
import { PUBLIC_TABLES, PUBLIC_VIEWS, type PublicTable } from '../store/schema.js';
import { limitToSpaces, storedSpaces } from '../store/space-scope.js';
import { CONVERSATION_TABLES, copyTable, PLACEHOLDERS_DIR, type TablePlan } from './copy-table.js';
import { installSpaces, installTable, partitionSources, restrictModes } from './install.js';
import { partitionsHoldingErased } from './erased-partitions.js';
import { checkLayout } from './layout.js';
import { settlePlaceholder } from './placeholder.js';
import { checkRedaction, redactionMark } from './redaction.js';
import {
  MANIFEST_FILE,
  MANIFEST_VERSION,
  NULL_PARTITION,
  bySpace,
  readManifest,
  timeUnitOf,
  type ExportFormat,
  type Manifest,
  type PartitionKind,
  type TimeUnit,
} from './manifest.js';
import { withReadOnlyDatabase } from '../store/read-only.js';
import { registerRedaction, type Redaction } from '../redact/outputs.js';

export { EXPORT_FORMATS, MANIFEST_FILE, PARTITION_KINDS, type ExportFormat, type PartitionKind } from './manifest.js';
export type { PublicTable };

const STAGING_PREFIX = '.convoduck-staging-';

export interface ExportOptions {
  outDir: string;
  format?: ExportFormat;
  /** default: every public table */
  tables?: readonly PublicTable[];
  partitionBy?: PartitionKind | null;
  /**
   * only rows of conversations started at or after this (dimension and sync tables: all rows);
   * the partitions of an earlier export that hold erased conversations are rewritten too
   */
  since?: Date | null;
  /** forget --out: of a time-partitioned folder's conversation tables, rewrite only the partitions that hold erased conversations */
  erasedOnly?: boolean;
  /** only these spaces' rows; a space-partitioned export then replaces only their directories */
  spaces?: readonly string[];
  lockTimeoutMs?: number;
  onWait?: () => void;
  /** called after each table has been written */
  onTable?: (table: TableExport) => void;
  now?: () => Date;
  /** --redact: personal data in the redacted columns (src/redact/outputs.ts) replaced */
  redaction?: Redaction | null;
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
  /** time partition values rewritten because their files held erased conversations */
  erasedPartitions: string[];
}

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
  const views = unknown.filter((n) => (PUBLIC_VIEWS as readonly string[]).includes(n));
  if (views.length > 0) {
    throw new InvalidInputError(
      `--tables: ${views.join(', ')} is a view, not a table: export conversations and agents, and join them on agent_id = id where you read them`,
    );
  }
  if (unknown.length > 0) {
    throw new InvalidInputError(`--tables: no public table ${unknown.join(', ')}; choose from ${PUBLIC_TABLES.join(', ')}`);
  }
  return PUBLIC_TABLES.filter((t) => names.includes(t));
}

/**
 * How long an export waits for another machine's export to finish its first write into OUT: between
 * moving its tables in and writing its manifest, OUT holds tables without a manifest.
 */
const FIRST_EXPORT_WAIT_MS = 10_000;
const FIRST_EXPORT_POLL_MS = 100;

/**
 * Creates OUT (0700) or checks that an existing OUT is empty or an earlier export. An OUT holding
 * another export's staging directory but no manifest yet is that export's first write: its
 * manifest is waited for (up to FIRST_EXPORT_WAIT_MS), then read.
 */
async function prepareOutDir(outDir: string, shownDir: string): Promise<Manifest | null> {
  const deadline = Date.now() + FIRST_EXPORT_WAIT_MS;
  for (;;) {
    const manifest = checkOutDir(outDir, shownDir, Date.now() < deadline);
    if (manifest !== 'pending') return manifest;
    await new Promise((r) => setTimeout(r, FIRST_EXPORT_POLL_MS));
  }
}

/** prepareOutDir's one look at OUT; `pending` while another export's first write may still bring its manifest. */
function checkOutDir(outDir: string, shownDir: string, mayWait: boolean): Manifest | null | 'pending' {
  if (!existsSync(outDir)) {
    createOutputDir(outDir, 0o700);
    chmodSync(outDir, 0o700);
    return null;
  }
  if (!statSync(outDir).isDirectory()) {
    throw new InvalidInputError(`--out ${outDir} is a file: pass a directory (it is created if missing)`);
  }
  const manifest = readManifest(outDir, shownDir);
  const all = readdirSync(outDir);
  const entries = all.filter((e) => !e.startsWith(STAGING_PREFIX));
  if (!manifest && entries.length > 0 && mayWait && all.some((e) => e.startsWith(STAGING_PREFIX))) return 'pending';
  if (!manifest && entries.length > 0) {
    throw new InvalidInputError(
      `--out ${outDir} is not empty and holds no earlier convoduck export (${MANIFEST_FILE}): ` +
        `pass a new or empty directory`,
    );
  }
  return manifest;
}

function setUmask(mask: number): number | null {
  try {
    return process.umask(mask);
  } catch {
    return null; // worker threads cannot change the umask: modes are fixed after writing instead
  }
}

/** The partition directory value (`2026-11-01`, `2026-11`) holding `date`. */
function partitionValue(date: Date, kind: TimeUnit): string {
  return date.toISOString().slice(0, kind === 'day' ? 10 : 7);
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
    const manifest = await prepareOutDir(outDir, options.outDir);
    checkRedaction(manifest, options.redaction, options.outDir);
    // Refusals come before the staging directory: a refused export leaves OUT as it was.
    checkLayout(outDir, options.outDir, manifest, {
      format,
      partition_by: partitionBy,
      tables,
      conversationTables: CONVERSATION_TABLES,
      since,
    });
    // The host in the name: machines sharing OUT (docs/scale-out.md) may run exports with the same pid.
    const stagingDir = join(outDir, `${STAGING_PREFIX}${hostname()}-${process.pid}`);
    rmSync(stagingDir, { recursive: true, force: true });
    createOutputDir(stagingDir, 0o700, { parents: false });
    try {
      // Partitioned by space, every table is (the others by space alone); by time, the conversation tables only.
      const partialByTime = timeUnitOf(partitionBy) !== null && (since !== null || options.erasedOnly === true);
      const plans: TablePlan[] = tables.map((table) => {
        const conversational = CONVERSATION_TABLES.includes(table);
        const partition = conversational ? partitionBy : bySpace(partitionBy) ? 'space' : null;
        // a table the folder does not hold yet is written whole
        const filtered = conversational && (since !== null || (partialByTime && existsSync(join(outDir, table))));
        return { table, partitionBy: partition, filtered };
      });
      let stale = new Set<string>();
      /** the `space=` directories this export owns: its spaces' (and, reading them all, the one of rows without a space) */
      let covered: string[] = [];

      // 1. Every table into the staging directory, under one read lock (one consistent state).
      const copied = await withReadOnlyDatabase(
        dbPath,
        { lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait },
        async (db) => {
          rmSync(stagingDir, { recursive: true, force: true }); // a retried attempt starts clean
          createOutputDir(stagingDir, 0o700, { parents: false });
          if (options.redaction) registerRedaction(db.connection, options.redaction);
          const only = options.spaces ?? [];
          await limitToSpaces(db, only);
          covered = [...(await storedSpaces(db)), ...(only.length > 0 ? [] : [NULL_PARTITION])].map((s) => `space=${s}`);
          stale = partialByTime ? await partitionsHoldingErased(db, outDir, manifest) : new Set();
          const filter = { since, partitions: [...stale] };
          const out = [];
          for (const plan of plans) out.push({ plan, ...(await copyTable(db, plan, stagingDir, format, filter, Boolean(options.redaction))) });
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
      const mark = redactionMark(options.redaction);
      if (mark) nextManifest.redaction = mark;
      for (const { plan, rows, files, placeholder } of copied) {
        const previous = manifest?.tables[plan.table];
        const finalDir = join(outDir, plan.table);
        const unit = timeUnitOf(plan.partitionBy);
        const spaces = bySpace(plan.partitionBy);
        const merge = plan.filtered && unit !== null && existsSync(finalDir);
        const range = merge && unit ? { kind: unit, from: since ? partitionValue(since, unit) : null, also: stale } : null;
        const staged = placeholder ? { root: join(stagingDir, PLACEHOLDERS_DIR, plan.table), path: placeholder } : null;
        // A table replaced whole gets its 0-row file before the swap, so readers never meet an empty folder.
        if (plan.partitionBy && !range) settlePlaceholder(join(stagingDir, plan.table), staged);
        const keptPartitions = spaces
          ? installSpaces(join(stagingDir, plan.table), finalDir, range, covered)
          : installTable(join(stagingDir, plan.table), finalDir, range);
        // After a partial replacement: placed if nothing is left, dropped once there are rows.
        const placed = plan.partitionBy ? settlePlaceholder(finalDir, staged) : null;
        if (placed && staged && !existsSync(join(staged.root, staged.path))) files.push(join(plan.table, placed));
        restrictModes(finalDir);
        const written = plan.filtered ? (since?.toISOString() ?? null) : null;
        nextManifest.tables[plan.table] = {
          format,
          partition_by: plan.partitionBy,
          since: merge ? (since ? earliest(previous?.since ?? null, written) : (previous?.since ?? null)) : written,
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
      // Written beside, then renamed: another machine's export reading it meanwhile sees a whole file.
      const written = join(stagingDir, MANIFEST_FILE);
      writeFileSync(written, JSON.stringify(nextManifest, null, 2) + '\n', { mode: 0o600 });
      chmodSync(written, 0o600);
      renameSync(written, join(outDir, MANIFEST_FILE));
      return {
        outDir,
        format,
        partitionBy,
        since: since ? formatInstant(since) : null,
        sinceRequested: options.since ? formatInstant(options.since) : null,
        exportedAt: formatInstant(new Date(exportedAt)),
        tables: results,
        erasedPartitions: [...stale].sort(),
      };
    } finally {
      rmSync(stagingDir, { recursive: true, force: true });
    }
  } finally {
    if (previousUmask !== null) setUmask(previousUmask);
  }
}
