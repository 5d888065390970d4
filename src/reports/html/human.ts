// Numbers and times as people read them on the page: percentages with one decimal, durations as
// 1m 23s, counts with thousands separators, instants in the report's time zone. The exact
// figure stays in the markup (data-value), so the page can be checked against the CSV.

const MINUS = '\u2212';

export function count(n: number | null): string {
  return n === null ? '—' : Math.round(n).toLocaleString('en-US');
}

/** A rate 0..1 as a percentage with one decimal: 0.1234 → 12.3%. */
export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(1)}%`;
}

/** Seconds as 45s, 1m 23s or 2h 05m (rounded to the second). */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const total = Math.round(Math.abs(seconds));
  const sign = seconds < 0 && total > 0 ? MINUS : '';
  if (total < 60) return `${sign}${total}s`;
  if (total < 3600) return `${sign}${Math.floor(total / 60)}m ${total % 60}s`;
  const minutes = Math.floor((total % 3600) / 60);
  return `${sign}${Math.floor(total / 3600)}h ${String(minutes).padStart(2, '0')}m`;
}

function signed(text: string, value: number): string {
  if (value > 0) return `+${text}`;
  if (value < 0) return `${MINUS}${text}`;
  return `±${text}`;
}

/** The difference of two rates in percentage points: +2.3 pp. */
export function pointsChange(now: number, before: number): string {
  const points = (now - before) * 100;
  return `${signed(Math.abs(points).toFixed(1), Number(points.toFixed(1)))} pp`;
}

/** A count's change, absolute and relative: +321 (+12.0%). */
export function countChange(now: number, before: number): string {
  const diff = now - before;
  const absolute = signed(Math.abs(diff).toLocaleString('en-US'), diff);
  if (before === 0) return absolute;
  const relative = (diff / before) * 100;
  return `${absolute} (${signed(Math.abs(relative).toFixed(1), Number(relative.toFixed(1)))}%)`;
}

export function durationChange(now: number, before: number): string {
  const diff = Math.round(now - before);
  return signed(duration(Math.abs(diff)), diff);
}

function zoned(tz: string): string {
  // DuckDB's zone names are IANA names; one Intl may not know still falls back to UTC, named as such
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

/** An instant in `tz`: Mon 9 Nov 2026, 14:05. */
export function dateTime(instant: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zoned(tz),
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
}

/** A calendar day as written in the reports (2026-11-09) for people: Mon 9 Nov 2026. */
export function day(isoDay: string): string {
  const date = new Date(`${isoDay}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return isoDay;
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: 'UTC',
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  }).format(date);
}

/** Days and hours between two instants, for the period's length: 14 days, 36 hours. */
export function span(from: Date, to: Date): string {
  const hours = Math.round((to.getTime() - from.getTime()) / 3_600_000);
  if (hours % 24 === 0 || hours >= 72) {
    const days = Math.round(hours / 24);
    return `${days} ${days === 1 ? 'day' : 'days'}`;
  }
  return `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
}
