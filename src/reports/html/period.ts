// The period a page covers, the period of the same length just before it (what the tiles compare
// with), and whether the charts count per day or per week.

import type { ReportFilters, ResolvedParams } from '../../filters/params.js';

export type Bucket = 'day' | 'week';

/** Periods longer than this many days are charted per week. */
export const WEEKLY_AFTER_DAYS = 62;

const DAY_MS = 86_400_000;

export interface Period {
  /** --since and --until as bound (null when not given) */
  from: Date | null;
  to: Date | null;
  /** what the header shows: --since, else the first conversation's start; --to, else now */
  start: Date | null;
  end: Date;
  tz: string;
  bucket: Bucket;
  /** the same filters over the period just before; null without --since (the whole history is shown) */
  previous: ReportFilters | null;
}

/**
 * The period before: calendar days stay calendar days (--since 2026-11-09 --until 2026-11-16 compares
 * with 2026-11-02 to 2026-11-09 in --tz, whatever a clock change did); any other bound moves back
 * by the period's exact length, which ends at --until or now.
 */
export function previousFilters(filters: ReportFilters, params: ResolvedParams, now: Date): ReportFilters | null {
  if (!params.from) return null;
  const from = filters.from;
  const to = filters.to;
  if (from && to && 'localDate' in from && 'localDate' in to) {
    const days = Math.round((Date.parse(to.localDate) - Date.parse(from.localDate)) / DAY_MS);
    const start = new Date(Date.parse(from.localDate) - days * DAY_MS).toISOString().slice(0, 10);
    return { ...filters, from: { localDate: start }, to: { localDate: from.localDate } };
  }
  const end = params.to ?? now;
  const length = end.getTime() - params.from.getTime();
  if (length <= 0) return null; // a --since after now: nothing before it has the same length
  return { ...filters, from: { instant: new Date(params.from.getTime() - length) }, to: { instant: params.from } };
}

export function period(
  filters: ReportFilters,
  params: ResolvedParams,
  firstStartedAt: string | null,
  now: Date,
): Period {
  const start = params.from ?? (firstStartedAt ? new Date(firstStartedAt) : null);
  const end = params.to ?? now;
  const days = start ? (end.getTime() - start.getTime()) / DAY_MS : 0;
  return {
    from: params.from,
    to: params.to,
    start,
    end,
    tz: params.tz,
    bucket: days > WEEKLY_AFTER_DAYS ? 'week' : 'day',
    previous: previousFilters(filters, params, now),
  };
}

/** The calendar day (YYYY-MM-DD) holding `date` in `tz`. */
function localDay(date: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

/**
 * Every bucket of the period, in order: each day (or each week's Monday) from its start to its
 * end in its time zone, so that a time axis shows the days without conversations too.
 */
export function periodBuckets(p: Period): string[] {
  if (!p.start || p.end.getTime() <= p.start.getTime()) return [];
  const first = localDay(p.start, p.tz);
  const last = localDay(new Date(p.end.getTime() - 1), p.tz); // the end is exclusive
  const out: string[] = [];
  const step = p.bucket === 'week' ? 7 : 1;
  let day = Date.parse(`${first}T00:00:00Z`);
  if (p.bucket === 'week') day -= ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS; // back to Monday
  for (; day <= Date.parse(`${last}T00:00:00Z`); day += step * DAY_MS) out.push(new Date(day).toISOString().slice(0, 10));
  return out;
}

/** Whether `date` is a midnight in `tz`, starting a bucket (for weeks: a Monday's midnight). */
function startsBucket(date: Date, tz: string, bucket: Bucket): boolean {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value;
  const midnight = part('hour') === '00' && part('minute') === '00' && part('second') === '00' && date.getUTCMilliseconds() === 0;
  return midnight && (bucket === 'day' || part('weekday') === 'Mon');
}

/**
 * The buckets the period holds only part of, so that their counts are not read as drops: the
 * first when --since cuts into it, the last when the period ends inside it (--until mid-day, or
 * now). Without --since the first bucket starts at the first stored conversation and is whole.
 */
export function partialBuckets(p: Period): Set<string> {
  const buckets = periodBuckets(p);
  const out = new Set<string>();
  if (buckets.length === 0 || !p.start) return out;
  if (p.from && !startsBucket(p.start, p.tz, p.bucket)) out.add(buckets[0]!);
  if (!startsBucket(p.end, p.tz, p.bucket)) out.add(buckets[buckets.length - 1]!);
  return out;
}
