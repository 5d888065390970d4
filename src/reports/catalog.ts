// Finds the reports: one `.sql` file per report in the package's `sql/` folder. Adding a report
// means adding a file there; nothing in TypeScript lists them. Folders inside it (such as
// `shared/`, the relations the reports read) are not reports.

import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headerField, parseHeader } from './sql-file.js';

export interface ReportDefinition {
  /** the file name without `.sql`: what `convoduck report NAME` takes and the output file's name */
  name: string;
  /** from the header's `Title:` line (else its first line, else the name) */
  title: string;
  /** the header comment, without the leading `--` */
  header: string;
  /** the SQL text as written in the file */
  sql: string;
  file: string;
}

/**
 * The package's `sql/` folder, found from this module's own location so it works from any cwd:
 * dist/reports/catalog.js (or src/reports/catalog.ts under vitest) → ../../sql.
 */
export function defaultSqlDir(): string {
  return fileURLToPath(new URL('../../sql/', import.meta.url));
}

/** Every report in `dir`, sorted by name. */
export function loadReports(dir: string = defaultSqlDir()): ReportDefinition[] {
  return sqlFilesIn(dir, 'report folder').map((entry) => {
    const file = join(dir, entry);
    const sql = readFileSync(file, 'utf8');
    const header = parseHeader(sql);
    const name = basename(entry, '.sql');
    return { name, title: parseTitle(header) ?? name, header, sql, file };
  });
}

/** The `.sql` files directly in `dir` (no folders, no dot files), sorted by name. */
export function sqlFilesIn(dir: string, what: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot read the ${what} ${dir}: ${message}`);
  }
  return entries
    .filter((entry) => !entry.isDirectory() && entry.name.endsWith('.sql') && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
}

function parseTitle(header: string): string | undefined {
  const title = headerField(header, 'title');
  if (title) return title;
  const first = header.split('\n').find((l) => l.trim() !== '');
  return first?.trim();
}
