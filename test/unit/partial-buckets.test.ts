// The buckets a page's period holds only part of: the charts draw them pale so that a short first
// or last day does not read as a drop in volume.

import { describe, expect, it } from 'vitest';
import { partialBuckets, type Period } from '../../src/reports/html/period.js';

function period(from: string | null, start: string, end: string, tz = 'UTC', bucket: 'day' | 'week' = 'day'): Period {
  return { from: from ? new Date(from) : null, to: null, start: new Date(start), end: new Date(end), tz, bucket, previous: null };
}

describe('partialBuckets', () => {
  it('--since 14d at noon: the first and the last day are partial', () => {
    const p = period('2026-11-09T12:00:00Z', '2026-11-09T12:00:00Z', '2026-11-23T12:00:00Z');
    expect([...partialBuckets(p)].sort()).toEqual(['2026-11-09', '2026-11-23']);
  });

  it('whole days (midnight to midnight in the zone) have none', () => {
    expect(partialBuckets(period('2026-11-09T00:00:00Z', '2026-11-09T00:00:00Z', '2026-11-23T00:00:00Z')).size).toBe(0);
    // midnight in Berlin is 23:00 UTC the day before
    const berlin = period('2026-11-08T23:00:00Z', '2026-11-08T23:00:00Z', '2026-11-22T23:00:00Z', 'Europe/Berlin');
    expect(partialBuckets(berlin).size).toBe(0);
    // the same instants are mid-day in UTC
    const utc = period('2026-11-08T23:00:00Z', '2026-11-08T23:00:00Z', '2026-11-22T23:00:00Z');
    expect([...partialBuckets(utc)].sort()).toEqual(['2026-11-08', '2026-11-22']);
  });

  it('without --since the first day starts at the first conversation and is whole; today, still running, is partial', () => {
    const p = period(null, '2026-10-26T08:13:00Z', '2026-11-23T12:00:00Z');
    expect([...partialBuckets(p)]).toEqual(['2026-11-23']);
  });

  it('weeks: whole only from a Monday midnight to a Monday midnight', () => {
    const whole = period('2026-08-03T00:00:00Z', '2026-08-03T00:00:00Z', '2026-11-16T00:00:00Z', 'UTC', 'week'); // Mondays
    expect(partialBuckets(whole).size).toBe(0);
    const cut = period('2026-08-05T00:00:00Z', '2026-08-05T00:00:00Z', '2026-11-18T00:00:00Z', 'UTC', 'week'); // Wednesdays
    expect([...partialBuckets(cut)].sort()).toEqual(['2026-08-03', '2026-11-16']);
  });
});
