// Periods a rule is evaluated over: hours, days and ISO weeks (Monday to Monday) in UTC, each a
// half-open window [start, end). Pure functions of instants.

export const PERIODS = ['hour', 'day', 'week'] as const;
export type Period = (typeof PERIODS)[number];

export interface Window {
  start: Date;
  end: Date;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export function periodMs(period: Period): number {
  return period === 'hour' ? HOUR_MS : period === 'day' ? DAY_MS : 7 * DAY_MS;
}

/** The start of the period that holds `at`. */
export function periodStart(period: Period, at: Date): Date {
  const ms = at.getTime();
  if (period === 'hour') return new Date(ms - mod(ms, HOUR_MS));
  const day = ms - mod(ms, DAY_MS);
  if (period === 'day') return new Date(day);
  // 1970-01-01 was a Thursday: Mondays are 4 days after a multiple of 7 days
  const sinceMonday = mod(day - 4 * DAY_MS, 7 * DAY_MS);
  return new Date(day - sinceMonday);
}

/** The latest period that ended at or before `now`. */
export function latestComplete(period: Period, now: Date): Window {
  const end = periodStart(period, now);
  return { start: new Date(end.getTime() - periodMs(period)), end };
}

/** The `n` periods before `window`, oldest first. */
export function previousWindows(period: Period, window: Window, n: number): Window[] {
  const step = periodMs(period);
  return Array.from({ length: n }, (_, i) => {
    const start = window.start.getTime() - (n - i) * step;
    return { start: new Date(start), end: new Date(start + step) };
  });
}

/** Every complete period that starts at or after the period holding `from` and ends by `now`. */
export function windowsBetween(period: Period, from: Date, now: Date): Window[] {
  const step = periodMs(period);
  const last = latestComplete(period, now);
  const windows: Window[] = [];
  for (let start = periodStart(period, from).getTime(); start <= last.start.getTime(); start += step) {
    windows.push({ start: new Date(start), end: new Date(start + step) });
  }
  return windows;
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}
