// Times and durations as people type them (flags, report filters). Each parser throws an
// InvalidInputError naming the flag, what was wrong and which forms work.

import { isValid, parseISO, subDays, subHours, subMinutes, subWeeks } from 'date-fns';
import { InvalidInputError } from './errors.js';

const RELATIVE = /^(\d+)\s*(m|min|h|d|w)$/i;

/**
 * A point in time: an ISO 8601 date or date-time (a bare date is midnight UTC), a duration
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
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const date = parseISO(text);
    if (isValid(date)) return date;
  }
  throw new InvalidInputError(
    `${flag} ${JSON.stringify(value)} is not a time: use an ISO date or date-time (2026-11-01, 2026-11-01T08:00:00Z), ` +
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
