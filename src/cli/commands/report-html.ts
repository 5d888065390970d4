// `convoduck report --html`: the page instead of one file per report (src/reports/html).

import { isAbsolute, relative } from 'node:path';
import type { Redaction } from '../../redact/index.js';
import type { ReportFilters } from '../../reports/index.js';
import type { ReadTarget } from '../../store/read-only.js';
import { UsageError } from '../errors.js';

/** Vega and Vega-Lite take about half a second to load: only a run that draws the page pays it. */
export const loadHtmlReport = async () => (await import('../../reports/html/index.js')).writeHtmlReport;

export interface HtmlCommandOptions {
  names: readonly string[];
  dbPath: ReadTarget;
  outDir: string;
  filters: ReportFilters;
  now: Date;
  lockTimeoutMs: number;
  onWait: () => void;
  redaction: Redaction | null;
  withText: boolean;
}

/** A path as the user will type it: relative to the current folder when inside it. */
/** One written file, as report, report --html and demo print it: `NAME: WHAT → PATH`. */
export function fileLine(name: string, what: string, path: string): string {
  return `${name}: ${what} → ${shownPath(path)}\n`;
}

/** `N row(s)` of a report file. */
export function rowsOf(n: number): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
}

export function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

export async function reportHtml(options: HtmlCommandOptions): Promise<void> {
  if (options.names.length > 0) {
    throw new UsageError(
      `--html writes one page from the reports it needs: leave out the report names (${options.names.join(', ')}), or drop --html`,
    );
  }
  const result = await (await loadHtmlReport())({
    dbPath: options.dbPath,
    outDir: options.outDir,
    filters: options.filters,
    now: options.now,
    lockTimeoutMs: options.lockTimeoutMs,
    onWait: options.onWait,
    redaction: options.redaction,
    withText: options.withText,
  });
  const what = result.conversations === 0 ? 'no conversations in this period' : `${result.conversations} conversations`;
  process.stderr.write(fileLine('report.html', what, result.path));
}
