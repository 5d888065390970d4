// The generic SELECT the runner wraps around every report before it is written. It is built
// from the report's column types, so no report formats its own output:
//   csv        DOUBLE/FLOAT/DECIMAL → 4 places; the rest is written by the one CSV writer of
//              every command (src/output/csv.ts): timestamps, quoting, formula neutralisation
//   json       every timestamp → ISO 8601 in UTC with `Z`, as all of convoduck prints one
//              (isoUtcSql); a TIMESTAMP without zone is read in the session's TimeZone, which
//              the runner sets to --tz; DATE stays YYYY-MM-DD; DOUBLE/FLOAT/DECIMAL → 4 places
//   parquet    nothing: native types

import { DuckDBTypeId } from '@duckdb/node-api';
import { redactedSql } from '../redact/outputs.js';
import { isoUtcSql } from '../shared/time.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import type { OutputFormat } from './choices.js';

export interface ColumnInfo {
  name: string;
  typeId: DuckDBTypeId;
  /** DuckDB's alias of the type, e.g. `JSON` for a JSON column (whose typeId is VARCHAR) */
  alias?: string | undefined;
}

/** Decimal places kept for DOUBLE, FLOAT and DECIMAL columns in csv and json. */
export const DECIMALS = 4;

/**
 * The select list that turns a report's columns into what the output format should hold; with
 * `redact`, the columns src/redact/outputs.ts names go through its SQL functions first.
 */
export function outputSelectList(columns: readonly ColumnInfo[], format: OutputFormat, redact = false): string {
  const source = (column: ColumnInfo) =>
    redact ? redactedSql(column.name, sqlIdent(column.name), column.alias?.toUpperCase() === 'JSON') : sqlIdent(column.name);
  if (format === 'parquet') {
    const replaced = columns.filter((c) => source(c) !== sqlIdent(c.name)).map((c) => `${source(c)} AS ${sqlIdent(c.name)}`);
    return replaced.length > 0 ? `* REPLACE (${replaced.join(', ')})` : '*';
  }
  return columns
    .map((column) => `${outputExpression(column, format, source(column))} AS ${sqlIdent(column.name)}`)
    .join(',\n  ');
}

function outputExpression(column: ColumnInfo, format: 'csv' | 'json', c: string): string {
  if (isDecimal(column)) return `round(${c}, ${DECIMALS})`;
  if (format === 'csv') return c; // the CSV writer prints the rest (src/output/csv.ts)
  switch (column.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
      return isoUtcSql(c);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return isoUtcSql(`${c}::TIMESTAMPTZ`);
    default:
      break;
  }
  return c; // JSON keeps strings, lists and nested JSON as they are
}

function isDecimal(column: ColumnInfo): boolean {
  return column.typeId === DuckDBTypeId.DOUBLE || column.typeId === DuckDBTypeId.FLOAT || column.typeId === DuckDBTypeId.DECIMAL;
}
