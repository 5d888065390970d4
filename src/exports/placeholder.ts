// A partitioned table without rows would be an empty folder, which DuckDB, Spark and Trino
// refuse to read ("No files found"). Such a table gets one 0-row file with the table's columns,
// in the partition Hive readers take as NULL (`space=__HIVE_DEFAULT_PARTITION__/…`), so every
// exported table reads back with its schema; it is removed again once the table has rows.

import { existsSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { NULL_PARTITION } from './manifest.js';
import { createOutputDir } from '../shared/output-dir.js';

const PLACEHOLDER_STEM = 'empty';

/** `space=__HIVE_DEFAULT_PARTITION__/day=__HIVE_DEFAULT_PARTITION__/empty.parquet` for these partition columns. */
export function placeholderPath(partitionColumns: readonly string[], extension: string): string {
  return join(...partitionColumns.map((c) => `${c}=${NULL_PARTITION}`), `${PLACEHOLDER_STEM}.${extension}`);
}

function isPlaceholder(relativePath: string): boolean {
  const parts = relativePath.split('/');
  const file = parts.pop()!;
  return file.startsWith(`${PLACEHOLDER_STEM}.`) && parts.every((p) => p.endsWith(`=${NULL_PARTITION}`));
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path).map((f) => join(entry, f)) : [entry];
  });
}

/** Removes `dir` and its parents up to (not including) `stop` while they are empty. */
function pruneEmpty(dir: string, stop: string): void {
  for (let d = dir; d !== stop && d.startsWith(stop); d = dirname(d)) {
    if (!existsSync(d) || readdirSync(d).length > 0) return;
    rmdirSync(d);
  }
}

/**
 * Makes `tableDir` hold exactly one readable file set: when it holds no file, the staged
 * placeholder (`staged`, relative to `stagedRoot`) is moved in; when it holds rows' files, any
 * placeholder is removed. Returns the placeholder's path relative to `tableDir` when it is there.
 */
export function settlePlaceholder(tableDir: string, staged: { root: string; path: string } | null): string | null {
  createOutputDir(tableDir, 0o700);
  const files = filesUnder(tableDir);
  const data = files.filter((f) => !isPlaceholder(f));
  if (data.length > 0) {
    for (const f of files.filter(isPlaceholder)) {
      rmSync(join(tableDir, f), { force: true });
      pruneEmpty(dirname(join(tableDir, f)), tableDir);
    }
    return null;
  }
  const present = files.find(isPlaceholder);
  if (present) return present;
  if (!staged || !existsSync(join(staged.root, staged.path))) return null;
  const target = join(tableDir, staged.path);
  createOutputDir(dirname(target), 0o700);
  renameSync(join(staged.root, staged.path), target);
  return relative(tableDir, target);
}
