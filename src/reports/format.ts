// The generic SELECT the runner wraps around every report before DuckDB's COPY writes it.
// It is built from the report's column types, so no report formats its own output:
//   csv, json  every timestamp → ISO 8601 in UTC with `Z`, as all of convoduck prints one
//              (isoUtcSql); a TIMESTAMP without zone is read in the session's TimeZone, which
//              the runner sets to --tz; DATE stays YYYY-MM-DD; DOUBLE/FLOAT/DECIMAL → 4 places
//   csv        text (VARCHAR, JSON, ENUM, lists, structs, maps) → VARCHAR, and, unless --raw, a
//              cell that begins with = + - @ tab CR or LF gets a leading ' (spreadsheet formula
//              injection); numbers are never touched
//   parquet    nothing: native types

import { DuckDBTypeId } from '@duckdb/node-api';
import { isoUtcSql } from '../shared/time.js';

export const OUTPUT_FORMATS = ['csv', 'json', 'parquet'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface ColumnInfo {
  name: string;
  typeId: DuckDBTypeId;
  /** DuckDB's alias of the type, e.g. `JSON` for a JSON column (whose typeId is VARCHAR) */
  alias?: string | undefined;
}

export interface FormatOptions {
  /** csv only: neutralise formula-looking text cells (default true) */
  neutralise: boolean;
}

/** Decimal places kept for DOUBLE, FLOAT and DECIMAL columns in csv and json. */
export const DECIMALS = 4;

/** Characters that make a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_STARTS = [`'='`, `'+'`, `'-'`, `'@'`, 'chr(9)', 'chr(13)', 'chr(10)'];

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** The select list that turns a report's columns into what the output format should hold. */
export function outputSelectList(columns: readonly ColumnInfo[], format: OutputFormat, options: FormatOptions): string {
  if (format === 'parquet') return '*';
  return columns
    .map((column) => `${outputExpression(column, format, options)} AS ${quoteIdent(column.name)}`)
    .join(',\n  ');
}

function outputExpression(column: ColumnInfo, format: 'csv' | 'json', options: FormatOptions): string {
  const c = quoteIdent(column.name);
  switch (column.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
      return isoUtcSql(c);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return isoUtcSql(`${c}::TIMESTAMPTZ`);
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DECIMAL:
      return `round(${c}, ${DECIMALS})`;
    default:
      break;
  }
  if (format === 'json') return c; // JSON keeps strings, lists and nested JSON as they are
  if (isText(column)) {
    const text = `${c}::VARCHAR`;
    return options.neutralise ? neutralised(text) : text;
  }
  return c;
}

function isText(column: ColumnInfo): boolean {
  switch (column.typeId) {
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
    case DuckDBTypeId.VARIANT:
      return true;
    default:
      return false;
  }
}

function neutralised(text: string): string {
  return `CASE WHEN left(${text}, 1) IN (${FORMULA_STARTS.join(', ')}) THEN '''' || ${text} ELSE ${text} END`;
}
