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
      const text = toText(values[i] ?? null, col.type, this.wall);
      return csvField(this.guard[i] ? neutralise(text) : text);
    });
    return `${fields.join(',')}${this.eol}`;
  }
}
