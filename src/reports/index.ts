// Reports as SQL files: sql/*.sql, discovered at run time, written by DuckDB's COPY; the
// relations they read are SQL files too, in sql/shared/.

export { defaultSqlDir, loadCatalog, loadReports, type CustomReportDir, type ReportDefinition } from './catalog.js';
export { DEFAULT_DAYS, DEFAULT_EARLY_SECONDS, DEFAULT_MIN_SAMPLE, NUMBER_PARAMS } from '../filters/number-params.js';
export { OUTPUT_FORMATS, type OutputFormat } from './choices.js';
export { outputSelectList, type ColumnInfo } from './format.js';
export {
  PARAM_NAMES,
  parseReportTime,
  type ReportFilters,
  type TimeBound,
} from '../filters/params.js';
export { resolveTimeZone } from '../filters/resolve.js';
export {
  runReports,
  selectReports,
  type ReportResult,
  type RunReportsOptions,
} from './runner.js';
export { defaultSharedSqlDir, loadSharedRelations, type Materialization, type SharedRelation } from './shared-relations.js';
export { headerColumns, headerField, parseHeader, reportBody } from './sql-file.js';
