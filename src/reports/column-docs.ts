// What each report's columns mean, taken from its `.sql` header, carried to where its rows go: a
// `columns.md` beside the files (a person opening a CSV never sees the header), and each Parquet
// file's key-value metadata. A JSON report is one array of rows, a shape with no place for it.

import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportDefinition } from './catalog.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { headerColumns, headerSummary } from './sql-file.js';

/** The file beside the reports that describes their columns. */
export const COLUMN_DOCS_FILE = 'columns.md';

/** The extensions a report's file may have in an output folder. */
const REPORT_FILE_EXTENSIONS = ['csv', 'json', 'parquet'] as const;

/** Parquet metadata keys of convoduck's own, beside one key per described column. */
export const PARQUET_REPORT_KEY = 'convoduck:report';
export const PARQUET_TITLE_KEY = 'convoduck:title';

/** The `KV_METADATA {…}` option of a report's Parquet COPY: its name, title and each column's description. */
export function parquetKvMetadata(report: ReportDefinition): string {
  const entries: [string, string][] = [
    [PARQUET_REPORT_KEY, report.name],
    [PARQUET_TITLE_KEY, report.title],
    ...headerColumns(report.header).map((c): [string, string] => [c.name, c.description]),
  ];
  // literals, not bound values: COPY's options take no parameters (sqlText escapes every quote)
  return `KV_METADATA {${entries.map(([key, value]) => `${sqlIdent(key)}: ${sqlText(value)}`).join(', ')}}`;
}

/**
 * Writes `columns.md` into `outDir` for every report of `catalog` whose file is there now (written by
 * this run or an earlier one), so that it always describes what the folder holds.
 */
export function writeColumnDocs(outDir: string, catalog: readonly ReportDefinition[]): string {
  const present = catalog.filter((r) => REPORT_FILE_EXTENSIONS.some((ext) => existsSync(join(outDir, `${r.name}.${ext}`))));
  const path = join(outDir, COLUMN_DOCS_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, columnDocsMarkdown(present));
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
  return path;
}

export function columnDocsMarkdown(reports: readonly ReportDefinition[]): string {
  const parts = [
    '# What the columns of these reports mean',
    '',
    'Written by `convoduck report` with the report files, from the header of each report’s `.sql` file.',
  ];
  for (const report of [...reports].sort((a, b) => a.name.localeCompare(b.name))) {
    parts.push('', `## ${report.name}: ${report.title}`);
    const summary = headerSummary(report.header);
    if (summary) parts.push('', summary);
    const columns = headerColumns(report.header);
    if (columns.length === 0) {
      parts.push('', '(its header describes no columns)');
      continue;
    }
    parts.push('', '| column | meaning |', '|---|---|');
    for (const c of columns) parts.push(`| \`${c.name}\` | ${c.description.replaceAll('|', '\\|')} |`);
  }
  return parts.join('\n') + '\n';
}
