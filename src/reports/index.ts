// Reports as SQL files: sql/*.sql, discovered at run time, written by DuckDB's COPY.

export { defaultSqlDir, loadReports, parseHeader, type ReportDefinition } from './catalog.js';
export { OUTPUT_FORMATS, outputSelectList, type ColumnInfo, type OutputFormat } from './format.js';
export {
  DEFAULT_EARLY_SECONDS,
  DEFAULT_MIN_SAMPLE,
  PARAM_NAMES,
  parseReportTime,
  type ReportFilters,
  type TimeBound,
} from './params.js';
export {
  reportBody,
  resolveTimeZone,
  runReports,
  selectReports,
  type ReportResult,
  type RunReportsOptions,
} from './runner.js';
