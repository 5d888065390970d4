// Finds the reports: one `.sql` file per report in the package's `sql/` folder. Adding a report
// means adding a file there; nothing in TypeScript lists them.

import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot read the report folder ${dir}: ${message}`);
  }
  return entries
    .filter((entry) => entry.endsWith('.sql') && !entry.startsWith('.'))
    .sort()
    .map((entry) => {
      const file = join(dir, entry);
      const sql = readFileSync(file, 'utf8');
      const header = parseHeader(sql);
      const name = basename(entry, '.sql');
      return { name, title: parseTitle(header) ?? name, header, sql, file };
    });
}

/** The opening comment block: the `--` lines before the first line of SQL. */
export function parseHeader(sql: string): string {
  const lines: string[] = [];
  for (const line of sql.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '') {
      if (lines.length > 0) lines.push('');
      continue;
    }
    if (!trimmed.startsWith('--')) break;
    lines.push(trimmed.replace(/^--\s?/, ''));
  }
  return lines.join('\n').trim();
}

function parseTitle(header: string): string | undefined {
  const lines = header.split('\n');
  for (const line of lines) {
    const match = /^\s*title\s*:\s*(.+)$/i.exec(line);
    if (match) return match[1]!.trim();
  }
  const first = lines.find((l) => l.trim() !== '');
  return first?.trim();
}
