// What a sync run lists, and how a listing that does not add up is split (src/crawler/plan.ts).
import { describe, expect, it } from 'vitest';
import { countInWindow, pageCount, parseDetailsMode, planWindow, servedPageSize, splitShortWindow, splitWindow } from '../../src/crawler/plan.js';

const now = new Date('2026-11-21T12:00:00Z');
const hour = 3_600_000;

describe('planWindow', () => {
  it('lists everything up to the run start on the first run', () => {
    expect(planWindow({ now, watermark: null, overlapMs: hour })).toEqual({ from: null, to: now, advancesWatermark: true });
  });
  it('starts an incremental run one overlap before the watermark', () => {
    const watermark = new Date('2026-11-20T00:00:00Z');
    const w = planWindow({ now, watermark, overlapMs: hour });
    expect(w.from?.toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(w.to).toBe(now);
    expect(w.advancesWatermark).toBe(true);
  });
  it('re-lists everything with full', () => {
    const w = planWindow({ now, watermark: new Date('2026-11-20T00:00:00Z'), overlapMs: hour, full: true });
    expect(w.from).toBeNull();
  });
  it('never moves the watermark for a bounded backfill or one that leaves a hole', () => {
    const watermark = new Date('2026-11-10T00:00:00Z');
    const until = new Date('2026-11-05T00:00:00Z');
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-01'), until }).advancesWatermark).toBe(false);
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-15') }).advancesWatermark).toBe(false);
    expect(planWindow({ now, watermark, overlapMs: hour, since: new Date('2026-11-01') }).advancesWatermark).toBe(true);
    expect(planWindow({ now, watermark: null, overlapMs: hour, since: new Date('2026-11-01'), until }).to).toEqual(until);
  });
});

describe('splitWindow and countInWindow', () => {
  it('splits into inclusive halves that neither overlap nor leave a gap', () => {
    const halves = splitWindow(0, 1001);
    expect(halves).toEqual([
      [0, 500],
      [501, 1001],
    ]);
    expect(splitWindow(5, 5)).toBeNull();
  });
  it('counts inclusively on both ends', () => {
    expect(countInWindow([1, 2, 3, 4, 5], 2, 4)).toBe(3);
  });
});

describe('page size and page count follow what the server serves', () => {
  it('takes meta.per_page when the first page agrees with it', () => {
    expect(servedPageSize({ per_page: 50, total: 450 }, 50)).toBe(50);
    // a single page holding every counted item agrees with any per_page
    expect(servedPageSize({ per_page: 200, total: 30 }, 30)).toBe(200);
  });
  it('takes what the first page held when meta.per_page does not match it', () => {
    // says 200 (the size asked) but serves 37
    expect(servedPageSize({ per_page: 200, total: 450 }, 37)).toBe(37);
    // says 10 but serves 60
    expect(servedPageSize({ per_page: 10, total: 450 }, 60)).toBe(60);
    // no usable per_page at all
    expect(servedPageSize({ per_page: 0, total: 450 }, 25)).toBe(25);
    // an empty first page gives nothing to measure: keep a usable claim
    expect(servedPageSize({ per_page: 50, total: 3 }, 0)).toBe(50);
    expect(servedPageSize({ per_page: -1, total: 3 }, 0)).toBe(1);
  });
  it('counts pages from the total and the served size', () => {
    expect(pageCount(450, 50)).toBe(9);
    expect(pageCount(451, 50)).toBe(10);
    expect(pageCount(450, 37)).toBe(13);
    expect(pageCount(0, 200)).toBe(1);
  });
});

describe('splitShortWindow', () => {
  it('splits a bounded window where half of what was seen lies, so each half re-lists half the pages', () => {
    expect(splitShortWindow({ fromMs: 0, toMs: 10_000 }, [100, 200, 300, 9_000, -5, 20_000])).toEqual([
      { fromMs: 0, toMs: 200 },
      { fromMs: 201, toMs: 10_000 },
    ]);
    // nothing seen: the middle instant
    expect(splitShortWindow({ fromMs: 0, toMs: 1_001 }, [])).toEqual([
      { fromMs: 0, toMs: 500 },
      { fromMs: 501, toMs: 1_001 },
    ]);
    // everything at the last instant: that instant alone, then the rest
    expect(splitShortWindow({ fromMs: 0, toMs: 50 }, [50, 50, 50])).toEqual([
      { fromMs: 0, toMs: 49 },
      { fromMs: 50, toMs: 50 },
    ]);
    expect(splitShortWindow({ fromMs: 7, toMs: 7 }, [7, 7])).toBeNull();
  });
  it('keeps a window open at the bottom open below the earliest conversation seen', () => {
    const parts = splitShortWindow({ fromMs: null, toMs: 100_000 }, [40_000, 60_000, 70_000, 90_000])!;
    expect(parts).toEqual([
      { fromMs: null, toMs: 39_999 },
      { fromMs: 40_000, toMs: 60_000 },
      { fromMs: 60_001, toMs: 100_000 },
    ]);
    // nothing is lost: the parts cover every instant up to `to`, once
    for (const t of [-1e12, 0, 39_999, 40_000, 60_000, 60_001, 100_000]) {
      expect(parts.filter((p) => (p.fromMs === null || t >= p.fromMs) && t <= p.toMs)).toHaveLength(1);
    }
    expect(splitShortWindow({ fromMs: null, toMs: 100_000 }, [100_000])).toEqual([
      { fromMs: null, toMs: 99_999 },
      { fromMs: 100_000, toMs: 100_000 },
    ]);
  });
  it('cannot split an open window in which nothing was served', () => {
    expect(splitShortWindow({ fromMs: null, toMs: 100_000 }, [200_000])).toBeNull();
  });
});

describe('parseDetailsMode', () => {
  it('accepts all, none and outcome lists', () => {
    expect(parseDetailsMode('all')).toEqual({ kind: 'all' });
    expect(parseDetailsMode('none')).toEqual({ kind: 'none' });
    expect(parseDetailsMode('failed, transferred')).toEqual({ kind: 'first', outcomes: ['failed', 'transferred'] });
    expect(parseDetailsMode('')).toBeNull();
    expect(parseDetailsMode("x';drop")).toBeNull();
  });
});
