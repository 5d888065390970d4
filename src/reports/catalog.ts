// Finds the reports: one `.sql` file per report in the package's `sql/` folder, and in the
// user's own folder (`--sql-dir`, CONVODUCK_SQL_DIR) beside them. Adding a report means adding a
// file; nothing in TypeScript lists them. Folders inside (such as `shared/`, the relations the
// reports read) are not reports.

import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../shared/errors.js';
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
  /** from the user's folder of custom reports rather than the package */
  custom?: boolean;
}

/** A folder of the user's own reports, and where it was named (for messages). */
export interface CustomReportDir {
  dir: string;
  /** `--sql-dir` or `CONVODUCK_SQL_DIR` */
  source: string;
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

/**
 * The package's reports and, beside them, those in `custom` (sorted by name). A custom report
 * may not take a built-in report's name: one of the two would silently go unused.
 */
export function loadCatalog(custom: CustomReportDir | null | undefined, sqlDir: string = defaultSqlDir()): ReportDefinition[] {
  const builtIn = loadReports(sqlDir);
  if (!custom) return builtIn;
  const dir = resolve(custom.dir);
  const where = `${custom.source} ${custom.dir}`;
  let stat;
  try {
    stat = statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    if (code === 'ENOENT') throw new InvalidInputError(`${where} does not exist: pass a folder of .sql reports`);
    throw new InvalidInputError(`${where} cannot be read (${code}): pass a folder of .sql reports`);
  }
  if (!stat.isDirectory()) throw new InvalidInputError(`${where} is not a folder: pass a folder of .sql reports`);
  if (realpathSync(dir) === realpathSync(sqlDir)) return builtIn; // the built-in folder itself adds nothing
  let reports: ReportDefinition[];
  try {
    reports = loadReports(dir).map((r) => ({ ...r, custom: true }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new InvalidInputError(`${where} cannot be read (${code}): pass a folder of .sql reports you can read`);
  }
  const names = new Set(builtIn.map((r) => r.name));
  const clash = reports.find((r) => names.has(r.name));
  if (clash) {
    throw new InvalidInputError(
      `custom report ${clash.name} (${clash.file}) has the name of a built-in report: rename the file, e.g. my_${clash.name}.sql`,
    );
  }
  return [...builtIn, ...reports].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The `.sql` files directly in `dir` (no folders, no dot files), sorted by name. */
export function sqlFilesIn(dir: string, what: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw Object.assign(new Error(`cannot read the ${what} ${dir}: ${message}`), { code: (err as NodeJS.ErrnoException).code });
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
