// Turning DuckDB result values into output: JSON that never loses a BIGINT or a timestamp,
// RFC 4180 CSV, and an aligned text table. Everything here is pure (no I/O), so `query`,
// `report` and the tests share one definition of how a value looks.

import {
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { formatInstantMicros } from '../shared/time.js';

export const QUERY_FORMATS = ['table', 'csv', 'json', 'ndjson'] as const;
export type QueryFormat = (typeof QUERY_FORMATS)[number];

/** JSON text kept verbatim (a DuckDB JSON column), embedded as-is in JSON output. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A value ready for JSON output. */
export type JsonCell = null | boolean | number | string | RawJson | JsonCell[] | { [key: string]: JsonCell };

export interface Column {
  name: string;
  type: DuckDBType;
}

const NUMERIC_TYPES = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.BIGNUM,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
]);

export function isNumericType(type: DuckDBType): boolean {
  return NUMERIC_TYPES.has(type.typeId);
}

// ---------------------------------------------------------------------------------------
// Timestamps: every one is printed as an instant, ISO 8601 in UTC with `Z` (formatInstantMicros).
// A TIMESTAMP without zone is a wall-clock reading, taken in the session's TimeZone as DuckDB's
// own `::TIMESTAMPTZ` cast takes it, so `ts` and `ts::TIMESTAMPTZ` print alike.

/** The instant (µs since 1970) a TIMESTAMP's wall-clock reading (µs, as if UTC) names. */
export type WallClock = (wallMicros: bigint) => bigint;

/** The wall clock of a session in UTC: the reading is the instant. */
export const UTC_WALL_CLOCK: WallClock = (wall) => wall;

function instantText(micros: bigint, wall: WallClock | null, fallback: DuckDBValue): string {
  // ±infinity and dates beyond years 0001–9999: DuckDB's own text
  if (formatInstantMicros(micros) === null) return String(fallback);
  return formatInstantMicros(wall ? wall(micros) : micros) ?? String(fallback);
}

/** ISO 8601 UTC text of a timestamp-like DuckDB value, or null when `value` is not one. */
export function isoTimestamp(value: DuckDBValue, wall: WallClock = UTC_WALL_CLOCK): string | null {
  if (value instanceof DuckDBTimestampTZValue) return instantText(value.micros, null, value);
  if (value instanceof DuckDBTimestampValue) return instantText(value.micros, wall, value);
  if (value instanceof DuckDBTimestampSecondsValue) return instantText(value.seconds * 1_000_000n, wall, value);
  if (value instanceof DuckDBTimestampMillisecondsValue) return instantText(value.millis * 1000n, wall, value);
  // Nanoseconds: the microseconds are kept, the rest dropped (as DuckDB's ::TIMESTAMP does).
  if (value instanceof DuckDBTimestampNanosecondsValue) return instantText(value.nanos / 1000n, wall, value);
  return null;
}

function safeNumber(n: bigint): number | string {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) && n >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(n) : String(n);
}

const DECIMAL_EXACT_LIMIT = 10n ** 15n;

/** A DECIMAL as a JSON number when a double holds it exactly (≤ 15 digits), else as a string. */
function decimalCell(value: DuckDBDecimalValue): number | string {
  const abs = value.value < 0n ? -value.value : value.value;
  const text = value.toString();
  return abs < DECIMAL_EXACT_LIMIT ? Number(text) : text;
}

function floatCell(n: number): number | string {
  return Number.isFinite(n) ? n : String(n); // NaN, Infinity, -Infinity: JSON has no such numbers
}

/**
 * A value for JSON output. Integers that fit a double become numbers, larger ones strings;
 * DECIMALs likewise; timestamps ISO 8601; JSON columns embedded as JSON; lists arrays;
 * structs objects; maps arrays of {key, value}.
 */
export function toJsonCell(value: DuckDBValue, type: DuckDBType, wall: WallClock = UTC_WALL_CLOCK): JsonCell {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return Boolean(value);
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return typeof value === 'number' ? floatCell(value) : String(value);
    case DuckDBTypeId.DECIMAL:
      return value instanceof DuckDBDecimalValue ? decimalCell(value) : String(value);
    case DuckDBTypeId.VARCHAR:
      return type.alias?.toUpperCase() === 'JSON' && typeof value === 'string' ? new RawJson(value) : String(value);
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const items = (value as { items?: readonly DuckDBValue[] }).items ?? [];
      return items.map((item) => toJsonCell(item, type.valueType, wall));
    }
    case DuckDBTypeId.STRUCT: {
      const entries = (value as { entries?: Readonly<Record<string, DuckDBValue>> }).entries ?? {};
      const out: { [key: string]: JsonCell } = {};
      type.entryNames.forEach((name, i) => {
        out[name] = toJsonCell(entries[name] ?? null, type.entryTypes[i]!, wall);
      });
      return out;
    }
    case DuckDBTypeId.MAP: {
      const entries = (value as { entries?: { key: DuckDBValue; value: DuckDBValue }[] }).entries ?? [];
      return entries.map((e) => ({ key: toJsonCell(e.key, type.keyType, wall), value: toJsonCell(e.value, type.valueType, wall) }));
    }
    case DuckDBTypeId.UNION: {
      const union = value as { tag?: string; value?: DuckDBValue };
      const member = union.tag === undefined ? undefined : type.memberTypes[type.memberIndexForTag(union.tag)];
      return member ? toJsonCell(union.value ?? null, member, wall) : String(value);
    }
    default:
      break;
  }
  if (typeof value === 'bigint') return safeNumber(value);
  if (typeof value === 'number') return floatCell(value);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value;
  return isoTimestamp(value, wall) ?? String(value);
}

/** A value as text for CSV and table output (null stays null: the caller decides how it looks). */
export function toText(value: DuckDBValue, type: DuckDBType, wall: WallClock = UTC_WALL_CLOCK): string | null {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return stringifyJson(toJsonCell(value, type, wall));
    default:
      break;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof DuckDBDateValue || value instanceof DuckDBDecimalValue) return value.toString();
  return isoTimestamp(value, wall) ?? String(value);
}

/**
 * JSON text without the blanks between tokens. DuckDB keeps a JSON value's text as it was
 * stored, pretty-printed or not, and a line break would split an NDJSON record in two.
 */
export function compactJson(text: string): string {
  if (!/[\r\n]/.test(text)) return text;
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch !== ' ' && ch !== '\n' && ch !== '\r' && ch !== '\t') {
      out += ch;
    }
  }
  return out;
}

/** JSON text of a cell; RawJson goes in verbatim (compacted to one line). */
export function stringifyJson(cell: JsonCell): string {
  if (cell === null) return 'null';
  if (cell instanceof RawJson) return compactJson(cell.text);
  if (Array.isArray(cell)) return `[${cell.map(stringifyJson).join(',')}]`;
  if (typeof cell === 'object') {
    return `{${Object.entries(cell)
      .map(([k, v]) => `${JSON.stringify(k)}:${stringifyJson(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(cell);
}

// ---------------------------------------------------------------------------------------
// Row encoders. Each turns one result row (values in column order) into output text.

/** One row as a JSON object, keys in column order. */
export function jsonRow(columns: readonly Column[], row: readonly DuckDBValue[], wall: WallClock = UTC_WALL_CLOCK): string {
  const parts: string[] = [];
  columns.forEach((col, i) => {
    parts.push(`${JSON.stringify(col.name)}:${stringifyJson(toJsonCell(row[i] ?? null, col.type, wall))}`);
  });
  return `{${parts.join(',')}}`;
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

export function csvLine(fields: readonly (string | null)[]): string {
  return `${fields.map(csvField).join(',')}\n`;
}

export function csvRow(columns: readonly Column[], row: readonly DuckDBValue[], wall: WallClock = UTC_WALL_CLOCK): string {
  return csvLine(columns.map((col, i) => toText(row[i] ?? null, col.type, wall)));
}

// ---------------------------------------------------------------------------------------
// Text table: widths come from the header and the first rows seen (the caller decides how
// many to buffer); later rows are fitted to those widths, so the table can stream.

export const NULL_TEXT = 'NULL';
export const DEFAULT_MAX_CELL_WIDTH = 48;

function displayLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** One line, at most `width` characters: control characters shown visibly, overflow cut with `…`. */
export function fitCell(text: string, width: number): string {
  const flat = text.replace(/\r\n|\r|\n/g, '↵').replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '�');
  const chars = [...flat];
  if (chars.length <= width) return flat;
  return width <= 1 ? chars.slice(0, width).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

/** Types whose text is short and bounded: never cut, whatever --max-width says. */
const UNCUT_TYPES = new Set<DuckDBTypeId>([
  ...NUMERIC_TYPES,
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIME_NS,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
  DuckDBTypeId.UUID,
]);

export class TableLayout {
  readonly widths: number[];
  private readonly rightAlign: boolean[];
  private readonly cut: boolean[];

  /**
   * Column widths come from the header and `sample`; text columns are cut at `maxCellWidth`
   * (numbers, timestamps, dates and UUIDs never are: they are short, and useless cut).
   */
  constructor(
    private readonly columns: readonly Column[],
    sample: readonly (readonly DuckDBValue[])[],
    maxCellWidth = DEFAULT_MAX_CELL_WIDTH,
    private readonly wall: WallClock = UTC_WALL_CLOCK,
  ) {
    this.rightAlign = columns.map((c) => isNumericType(c.type));
    this.cut = columns.map((c) => !UNCUT_TYPES.has(c.type.typeId));
    this.widths = columns.map((col, i) => {
      const limit = UNCUT_TYPES.has(col.type.typeId) ? Number.MAX_SAFE_INTEGER : maxCellWidth;
      let width = displayLength(col.name);
      for (const row of sample) {
        const text = toText(row[i] ?? null, col.type, wall) ?? NULL_TEXT;
        width = Math.max(width, displayLength(fitCell(text, limit)));
        if (width >= limit) break;
      }
      return Math.max(width, 1);
    });
  }

  private line(cells: string[], align: boolean[], cut: boolean[]): string {
    return `${cells
      .map((cell, i) => {
        const width = this.widths[i]!;
        // A value wider than the sample showed overflows its column rather than lose digits.
        const text = cut[i] ? fitCell(cell, width) : fitCell(cell, Math.max(width, displayLength(cell)));
        const pad = ' '.repeat(Math.max(0, width - displayLength(text)));
        return align[i] ? pad + text : text + pad;
      })
      .join(' | ')
      .trimEnd()}\n`;
  }

  header(): string {
    const names = this.columns.map((c) => c.name);
    const rule = `${this.widths.map((w) => '-'.repeat(w)).join('-+-')}\n`;
    return (
      this.line(
        names,
        names.map(() => false),
        names.map(() => false),
      ) + rule
    );
  }

  row(row: readonly DuckDBValue[]): string {
    return this.line(
      this.columns.map((col, i) => toText(row[i] ?? null, col.type, this.wall) ?? NULL_TEXT),
      this.rightAlign,
      this.cut,
    );
  }
}

/** DuckDB error text as one line: the message without the caret diagram that follows it. */
export function oneLineError(message: string): string {
  const head = message.split(/\n\s*\n/)[0] ?? message;
  return head
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
