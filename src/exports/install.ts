// Moving a staged table into the export directory: whole, partition by partition (an incremental
// export), or space by space; owner-only modes on what is there; and the source range of every
// partition now there, for the manifest.

import { chmodSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NULL_PARTITION, partitionRange, type ManifestPartition, type TimeUnit } from './manifest.js';
import { createOutputDir } from '../shared/output-dir.js';

/** Owner-only modes on everything under `path` (exports hold transcripts: personal data). */
export function restrictModes(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) {
    chmodSync(path, 0o700);
    for (const entry of readdirSync(path)) restrictModes(join(path, entry));
  } else {
    chmodSync(path, 0o600);
  }
}

/**
 * The partitions an incremental export owns: every one from `from` on (null: none by time), and
 * those in `also` (the ones that held erased conversations).
 */
export interface PartitionMerge {
  kind: TimeUnit;
  from: string | null;
  also: ReadonlySet<string>;
}

/**
 * Moves a staged table into place: whole, or (incremental) partition by partition. An
 * incremental export owns the partitions `merge` names: those it wrote replace the old ones, and
 * old ones it did not write (no rows any more) are removed.
 */
export function installTable(stagedDir: string, finalDir: string, merge: PartitionMerge | null): number {
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
    const covered = value !== null && ((merge.from !== null && value !== NULL_PARTITION && value >= merge.from) || merge.also.has(value));
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
export function installSpaces(stagedDir: string, finalDir: string, merge: PartitionMerge | null, covered: readonly string[]): number {
  createOutputDir(finalDir, 0o700);
  createOutputDir(stagedDir, 0o700);
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
      createOutputDir(staged, 0o700, { parents: false }); // nothing written: the range is emptied, the rest kept
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
export function partitionSources(
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
