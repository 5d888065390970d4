// The one set of CSV rules of every command that prints rows (`query --format csv`, `report`):
// RFC 4180 quoting, values as toText prints them, and text cells that a spreadsheet would run as a
// formula made harmless. The rules are written twice, to the byte: as CsvWriter, row by row in
// JavaScript (query, which streams and may redact rows), and as csvLinesSql, whole lines rendered
// by DuckDB (a report, whose millions of rows DuckDB's COPY writes far faster than JavaScript can).
// test/unit/csv-sql.test.ts holds the two to the same bytes for every type the SQL renders.

import { DuckDBTypeId, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { isoUtcSql } from '../shared/time.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { toText, UTC_WALL_CLOCK, type Column, type WallClock } from './values.js';

export interface CsvOptions {
  /** the instant a TIMESTAMP's wall-clock reading names (the session's TimeZone) */
  wall?: WallClock;
  /** keep text cells that look like formulas as they are (report --raw, query --raw) */
  raw?: boolean;
  /** CRLF line ends and a byte-order mark first, for spreadsheet programs (report --excel) */
  excel?: boolean;
}

/** RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. NULL is an empty field, '' is `""`. */
export function csvField(text: string | null): string {
  if (text === null) return '';
  // Leading or trailing blanks are quoted too: some readers trim unquoted fields.
  if (text === '' || /[",\r\n]/.test(text) || /^\s|\s$/.test(text)) {
    return `"${text.replace(/"/g, '""')}"`;
  }
  return text;
}

/** What makes a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\n'];

/** JavaScript's `\s`, for SQL: the characters that make csvField quote a field they start or end. */
const BLANKS = ['\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];

/** Types whose cells are text: only these are ever neutralised (`-5` in a number column stays `-5`). */
const TEXT_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.VARCHAR,
  DuckDBTypeId.ENUM,
  DuckDBTypeId.LIST,
  DuckDBTypeId.ARRAY,
  DuckDBTypeId.STRUCT,
  DuckDBTypeId.MAP,
  DuckDBTypeId.UNION,
  DuckDBTypeId.VARIANT,
]);

export function isTextType(type: DuckDBType): boolean {
  return TEXT_TYPES.has(type.typeId);
}

/** A text cell a spreadsheet would run as a formula, with a leading `'` so it shows as text. */
export function neutralise(text: string | null): string | null {
  return text !== null && FORMULA_STARTS.includes(text.charAt(0)) ? `'${text}` : text;
}

/**
 * A DOUBLE or FLOAT as DuckDB writes it (shortest digits that read back the same, `5.0` rather than
 * `5`, exponents from 1e16 and below 1e-4, `nan`, `inf`), so report CSVs read as they always did.
 */
export function floatText(n: number, single = false): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  let shortest = n;
  if (single) {
    for (let digits = 1; digits <= 9; digits++) {
      const candidate = Number(n.toPrecision(digits));
      if (Math.fround(candidate) === n) {
        shortest = candidate;
        break;
      }
    }
  }
  const [mantissa, exp] = shortest.toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  const text = String(shortest);
  return text.includes('.') ? text : `${text}.0`;
}

export class CsvWriter {
  private readonly wall: WallClock;
  private readonly guard: boolean[];
  private readonly eol: string;

  constructor(
    private readonly columns: readonly Column[],
    private readonly options: CsvOptions = {},
  ) {
    this.wall = options.wall ?? UTC_WALL_CLOCK;
    this.guard = columns.map((c) => !options.raw && isTextType(c.type));
    this.eol = options.excel ? '\r\n' : '\n';
  }

  /** The header line (with the byte-order mark when for a spreadsheet). */
  header(): string {
    return csvHeader(this.columns.map((c) => c.name), this.options);
  }

  row(values: readonly DuckDBValue[]): string {
    const fields = this.columns.map((col, i) => {
      const value = values[i] ?? null;
      if (typeof value === 'number' && (col.type.typeId === DuckDBTypeId.DOUBLE || col.type.typeId === DuckDBTypeId.FLOAT)) {
        return floatText(value, col.type.typeId === DuckDBTypeId.FLOAT);
      }
      const text = toText(value, col.type, this.wall);
      return csvField(this.guard[i] ? neutralise(text) : text);
    });
    return `${fields.join(',')}${this.eol}`;
  }
}

/** A column as csvLinesSql reads it: its name and type in the relation the line is rendered from. */
export interface CsvColumn {
  name: string;
  typeId: DuckDBTypeId;
  /** `JSON` for a JSON column */
  alias?: string | undefined;
}

const INTEGER_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER, DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT,
]);
const WALL_CLOCK_TYPES = new Set<DuckDBTypeId>([DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_S, DuckDBTypeId.TIMESTAMP_MS, DuckDBTypeId.TIMESTAMP_NS]);

/** SQL: the field text of a TIMESTAMPTZ (as toText: ISO 8601 UTC; DuckDB's own text outside years 0001–9999). */
function instantSql(v: string): string {
  return `CASE WHEN NOT isfinite(${v}) OR ${v} < TIMESTAMPTZ '0001-01-01 00:00:00+00' OR ${v} > TIMESTAMPTZ '9999-12-31 23:59:59.999+00'
    THEN ${v}::VARCHAR ELSE ${isoUtcSql(v)} END`;
}

/** SQL: the unquoted text of column `c` as toText prints it, or null when only CsvWriter prints its type. */
function fieldTextSql(column: CsvColumn, c: string): string | null {
  const id = column.typeId;
  if (id === DuckDBTypeId.VARCHAR || id === DuckDBTypeId.UUID || id === DuckDBTypeId.DATE || id === DuckDBTypeId.BOOLEAN) return `${c}::VARCHAR`;
  if (INTEGER_TYPES.has(id) || id === DuckDBTypeId.DECIMAL || id === DuckDBTypeId.DOUBLE) return `${c}::VARCHAR`;
  if (id === DuckDBTypeId.TIMESTAMP_TZ) return instantSql(c);
  if (WALL_CLOCK_TYPES.has(id)) return instantSql(`${c}::TIMESTAMPTZ`);
  return null;
}

/** SQL: whether the first character of `t` is one of `chars` (ascii() is the first code point, cheaper than left(); a list, not an IN, which DuckDB plans as a join). */
function startsWithOneOf(t: string, chars: readonly string[]): string {
  return `list_contains([${chars.map((c) => c.codePointAt(0)).join(', ')}], ascii(${t}))`;
}

/** SQL: `t` (text, not NULL) as csvField quotes it. */
function quotedSql(t: string): string {
  // one string of every blank, searched once: far cheaper for DuckDB to plan than an IN list of texts;
  // substring counts code points, cheaper than right()'s grapheme clusters (every blank is one)
  const blanks = sqlText(BLANKS.join(''));
  return `CASE WHEN ${t} = '' OR contains(${t}, '"') OR contains(${t}, ',') OR contains(${t}, chr(13)) OR contains(${t}, chr(10))
              OR ${startsWithOneOf(t, BLANKS)} OR strpos(${blanks}, substring(${t}, -1)) > 0
    THEN '"' || replace(${t}, '"', '""') || '"' ELSE ${t} END`;
}

/**
 * SQL: a SELECT of one column, `line`, the CSV line (without its line end) of each row of the
 * relation `from` (whose columns are `columns`), by CsvWriter's rules; null when a column has a
 * type only CsvWriter prints (lists, structs, …). Each rule is a projection of its own over the
 * one before, so that no expression repeats another: nested, they would multiply.
 */
export function csvLinesSql(columns: readonly CsvColumn[], from: string, options: Pick<CsvOptions, 'raw'> = {}): string | null {
  const texts: string[] = [];
  for (const column of columns) {
    const text = fieldTextSql(column, sqlIdent(column.name));
    if (text === null) return null;
    texts.push(text);
  }
  if (columns.length === 0) return `SELECT ${sqlText('')} AS line FROM ${from}`;
  const f = (i: number) => `f${i}`;
  const guarded = columns.map((column, i) =>
    !options.raw && column.typeId === DuckDBTypeId.VARCHAR
      ? `CASE WHEN ${startsWithOneOf(f(i), FORMULA_STARTS)} THEN '''' || ${f(i)} ELSE ${f(i)} END`
      : f(i),
  );
  const select = (list: string[], inner: string) => `SELECT ${list.map((e, i) => `${e} AS ${f(i)}`).join(', ')} FROM (${inner})`;
  const text = `SELECT ${texts.map((e, i) => `${e} AS ${f(i)}`).join(', ')} FROM ${from}`;
  // Only text can need quotes: a number, date, boolean, id or instant prints none of `",` CR LF,
  // and never starts or ends with a blank.
  const quoted = select(columns.map((column, i) => `coalesce(${column.typeId === DuckDBTypeId.VARCHAR ? quotedSql(f(i)) : f(i)}, '')`), select(guarded, text));
  return `SELECT concat(${columns.map((_, i) => f(i)).join(`, ',', `)}) AS line FROM (${quoted})`;
}

/** The header line as CsvWriter writes it (with the byte-order mark when for a spreadsheet). */
export function csvHeader(names: readonly string[], options: Pick<CsvOptions, 'excel'> = {}): string {
  return `${options.excel ? '\uFEFF' : ''}${names.map(csvField).join(',')}${options.excel ? '\r\n' : '\n'}`;
}
