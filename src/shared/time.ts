// Times and durations as people type them (flags, report filters). Each parser throws an
// InvalidInputError naming the flag, what was wrong and which forms work.

// One module per function: the package's index loads all of date-fns, a cost every command pays at start-up.
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { subDays } from 'date-fns/subDays';
import { subHours } from 'date-fns/subHours';
import { subMinutes } from 'date-fns/subMinutes';
import { subWeeks } from 'date-fns/subWeeks';
import { InvalidInputError } from './errors.js';

const RELATIVE = /^(\d+)\s*(m|min|h|d|w)$/i;

/**
 * A point in time: an ISO 8601 date or date-time (a bare date is midnight UTC; a space may stand
 * for the `T`), a duration
 * back from `now` (`90m`, `24h`, `7d`, `2w`), or `now`, `today`, `yesterday` (UTC days).
 */
export function parseTimeArg(flag: string, value: string, now: Date = new Date()): Date {
  const text = value.trim();
  const lower = text.toLowerCase();
  if (lower === 'now') return now;
  if (lower === 'today') return utcMidnight(now);
  if (lower === 'yesterday') return subDays(utcMidnight(now), 1);
  const relative = RELATIVE.exec(text);
  if (relative) {
    const n = Number(relative[1]);
    const unit = relative[2]!.toLowerCase();
    if (unit === 'm' || unit === 'min') return subMinutes(now, n);
    if (unit === 'h') return subHours(now, n);
    if (unit === 'd') return subDays(now, n);
    return subWeeks(now, n);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const date = new Date(`${text}T00:00:00Z`);
    if (isValid(date) && date.toISOString().startsWith(text)) return date;
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d/.test(text)) {
    // `2026-11-20 08:00` as people (and SQL) write it: the same as `2026-11-20T08:00`
    const date = parseISO(`${text.slice(0, 10)}T${text.slice(11)}`);
    if (isValid(date)) return date;
  }
  throw new InvalidInputError(
    `${flag} ${JSON.stringify(value)} is not a time: use an ISO date or date-time (2026-11-01, 2026-11-01T08:00:00Z, 2026-11-01 08:00), ` +
      `a duration back from now (90m, 24h, 7d, 2w), or today/yesterday/now`,
  );
}

/** A duration such as `1h`, `30m`, `2d`, `45s` in milliseconds. */
export function parseDurationArg(flag: string, value: string): number {
  const match = /^(\d+)\s*(s|m|min|h|d)$/i.exec(value.trim());
  if (!match) {
    throw new InvalidInputError(`${flag} ${JSON.stringify(value)} is not a duration: use a number and a unit, e.g. 45s, 30m, 1h, 2d`);
  }
  const n = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const ms = { s: 1000, m: 60_000, min: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return n * ms;
}

function utcMidnight(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

// ---------------------------------------------------------------------------------------
// Printing timestamps. Every text output (query, report, export CSV, status) writes an instant
// one way: ISO 8601 in UTC with `Z`, and a fraction only when there is one, in milliseconds or,
// when those do not hold it, microseconds: 2026-10-31T23:59:59Z, 2026-10-31T23:59:59.250Z,
// 2026-10-31T23:59:59.250125Z. formatInstantMicros prints it in JS, isoUtcSql in DuckDB.

const FIRST_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An instant given in microseconds since 1970 as ISO 8601 UTC text; null outside the years
 * 0001–9999 (and for DuckDB's ±infinity), where callers print DuckDB's own text instead.
 */
export function formatInstantMicros(micros: bigint): string | null {
  let ms = micros / 1000n;
  let sub = micros % 1000n;
  if (sub < 0n) {
    ms -= 1n;
    sub += 1000n;
  }
  if (ms < BigInt(FIRST_MS) || ms > BigInt(LAST_MS)) return null;
  const text = new Date(Number(ms)).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  if (sub !== 0n) return `${text.slice(0, 23)}${String(sub).padStart(3, '0')}Z`;
  if (text.slice(20, 23) !== '000') return text;
  return `${text.slice(0, 19)}Z`;
}

/** A JS Date as formatInstantMicros prints it. */
export function formatInstant(date: Date): string {
  return formatInstantMicros(BigInt(date.getTime()) * 1000n) ?? date.toISOString();
}

/**
 * The DuckDB expression that prints the TIMESTAMPTZ `expr` as formatInstantMicros does (NULL
 * stays NULL), whatever the session's TimeZone. `expr` is evaluated several times: pass a
 * column or another cheap expression.
 */
export function isoUtcSql(expr: string): string {
  // A finite instant's microseconds since 1970 read as a wall clock are its UTC reading: no
  // time-zone lookup per row, which took most of a million-row report's timestamp printing.
  const micros = `epoch_us(${expr})`;
  const format = (fraction: string) => `strftime(make_timestamp(${micros}), '%Y-%m-%dT%H:%M:%S${fraction}Z')`;
  return `CASE WHEN ${expr} IS NULL THEN NULL
    WHEN NOT isfinite(${expr}) THEN strftime(timezone('UTC', ${expr}), '%Y-%m-%dT%H:%M:%SZ')
    WHEN ${micros} % 1000000 = 0 THEN ${format('')}
    WHEN ${micros} % 1000 = 0 THEN ${format('.%g')}
    ELSE ${format('.%f')} END`;
}

// A TIMESTAMP (no zone) is a wall-clock reading. DuckDB turns one into an instant in the
// session's TimeZone (`ts::TIMESTAMPTZ`), and printing does the same, so `ts` and
// `ts::TIMESTAMPTZ` print alike. zoneReader does it in JS with DuckDB's rules for the hours a
// clock change skips (the offset before the change) or repeats (the later instant).

const UTC_ZONES = new Set(['utc', 'etc/utc', 'gmt', 'etc/gmt', 'uct', 'etc/uct', 'universal', 'etc/universal', 'zulu', 'etc/zulu', 'gmt0', 'etc/gmt0', 'greenwich', 'etc/greenwich']);
const DAY_MS = 86_400_000;

/**
 * A function from a wall-clock time in `zone` (microseconds, as if UTC) to the instant it
 * names (microseconds since 1970). Throws a RangeError for a zone the JS runtime does not know.
 */
export function zoneReader(zone: string): (wallMicros: bigint) => bigint {
  if (UTC_ZONES.has(zone.trim().toLowerCase())) return (wall) => wall;
  const formatter = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    era: 'short',
  });
  /** zone offset at the instant `ms`, in ms (local = UTC + offset) */
  const offsetAt = (ms: number): number => {
    const parts: Record<string, string> = {};
    for (const p of formatter.formatToParts(new Date(ms))) parts[p.type] = p.value;
    const year = parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
    const local = new Date(0);
    local.setUTCFullYear(year, Number(parts.month) - 1, Number(parts.day));
    local.setUTCHours(Number(parts.hour), Number(parts.minute), Number(parts.second), 0);
    const whole = ms - (((ms % 1000) + 1000) % 1000);
    return local.getTime() - whole;
  };
  const byDay = new Map<number, number>();
  const dayOffset = (day: number): number => {
    let offset = byDay.get(day);
    if (offset === undefined) {
      if (byDay.size > 4096) byDay.clear();
      offset = offsetAt(day * DAY_MS);
      byDay.set(day, offset);
    }
    return offset;
  };
  return (wallMicros) => {
    const wallMs = Number(wallMicros / 1000n);
    const day = Math.floor(wallMs / DAY_MS);
    const before = dayOffset(day - 1);
    const after = dayOffset(day + 2);
    let offset = before;
    if (before !== after) {
      const earlier = offsetAt(wallMs - before) === before;
      const later = offsetAt(wallMs - after) === after;
      // A repeated hour is read as its later instant; a skipped one with the offset before the change.
      if (earlier && later) offset = Math.min(before, after);
      else if (later) offset = after;
    }
    return wallMicros - BigInt(offset) * 1000n;
  };
}
