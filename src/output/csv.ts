// The one CSV writer of every command that prints rows (`query --format csv`, `report`): RFC 4180
// quoting, values as toText prints them, and text cells that a spreadsheet would run as a formula
// made harmless. One writer, so the same rows give the same bytes whichever command wrote them.

import { DuckDBTypeId, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
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
const FORMULA_START = /^[=+\-@\t\r\n]/;

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
  return text !== null && FORMULA_START.test(text) ? `'${text}` : text;
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
    return `${this.options.excel ? '\uFEFF' : ''}${this.columns.map((c) => csvField(c.name)).join(',')}${this.eol}`;
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
