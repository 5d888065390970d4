// Turning DuckDB result values into text and JSON: JSON that never loses a BIGINT or a
// timestamp, and the text of a value as CSV and table output show it. Pure (no I/O), so
// `query`, `report` and the tests share one definition of how a value looks.

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
import { QueryError } from '../shared/errors.js';
import { formatInstantMicros, zoneReader } from '../shared/time.js';

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

export const NUMERIC_TYPES = new Set<DuckDBTypeId>([
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

/** The wall clock of `zone`, made when the first TIMESTAMP is printed. */
export function sessionWallClock(zone: string): WallClock {
  let read: WallClock | null = null;
  return (wall) => {
    if (!read) {
      try {
        read = zoneReader(zone);
      } catch {
        throw new QueryError(
          `cannot print TIMESTAMP values read in the session TimeZone ${JSON.stringify(zone)}: ` +
            `cast them to TIMESTAMPTZ or format them with strftime`,
        );
      }
    }
    return read(wall);
  };
}

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
// JSON rows: one result row (values in column order) as one JSON object.

/** One row as a JSON object, keys in column order. */
export function jsonRow(columns: readonly Column[], row: readonly DuckDBValue[], wall: WallClock = UTC_WALL_CLOCK): string {
  const parts: string[] = [];
  columns.forEach((col, i) => {
    parts.push(`${JSON.stringify(col.name)}:${stringifyJson(toJsonCell(row[i] ?? null, col.type, wall))}`);
  });
  return `{${parts.join(',')}}`;
}
