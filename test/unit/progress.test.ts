// The progress line (src/cli/sync/progress.ts): the rolling rate and the budget per minute, the ETA from
// the budget, the line fitted to a terminal's width, and how often the printer writes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { columnsOf, cut, progressLine, etaSeconds, fitParts, describeParts, formatDuration, progressPrinter, ratePerMinute } from '../../src/cli/sync/progress.js';
import type { SyncProgress } from '../../src/crawler/sync.js';

function progress(over: Partial<SyncProgress> = {}): SyncProgress {
  return {
    phase: 'details',
    listed: 1200,
    listTotal: 1200,
    detailsDone: 340,
    detailsTotal: 1200,
    requests: 1647,
    throttled: 0,
    errors: 0,
    startedAt: new Date('2026-11-23T12:00:00Z'),
    window: { from: null, to: '2026-11-23T12:00:00.000Z' },
    rate: { inWindow: 59, budget: 59, windowMs: 60_000 },
    requestsLeft: 860,
    waiting: null,
    ...over,
  };
}

describe('the rate', () => {
  it('is our sends in the server’s window, not requests over elapsed time', () => {
    // 1647 requests a minute after the start would be "1647/min" over elapsed time
    expect(progressLine(progress())).toContain('59/min (budget 59/min)');
    expect(progressLine(progress())).not.toContain('1647/min');
  });
  it('scales a shrunk window to a minute', () => {
    expect(ratePerMinute({ inWindow: 19, budget: 19, windowMs: 20_000 })).toEqual({ sent: 57, budget: 57 });
    expect(ratePerMinute({ inWindow: 10, budget: 59, windowMs: 60_000 })).toEqual({ sent: 10, budget: 59 });
  });
});

describe('the ETA', () => {
  const rate = { inWindow: 60, budget: 60, windowMs: 60_000 };
  it('follows the budget: what is left, at the budget per window', () => {
    // 600 left at 60 a minute, the window full and nobody waiting: the next goes at once, the rest take 599 s
    expect(etaSeconds({ requestsLeft: 600, rate, waiting: null })).toBeCloseTo(599, 0);
    // 60 in the window, 30 allowed: the first new one waits for 31 of them to leave
    expect(etaSeconds({ requestsLeft: 600, rate: { ...rate, budget: 30 }, waiting: null })).toBeCloseTo(1199, 0);
  });
  it('follows the window: each send goes when the one it replaces leaves, round after round', () => {
    const leaveInMs = [500, 10_000, 10_000, 59_000];
    const at = (left: number) => etaSeconds({ requestsLeft: left, rate: { inWindow: 4, budget: 4, windowMs: 60_000, leaveInMs }, waiting: null });
    expect([1, 2, 3, 4, 5, 8].map(at)).toEqual([0.5, 10, 10, 59, 60.5, 119]);
  });
  it('counts the free slots of the window as going at once, the rest when the window frees them', () => {
    // 50 free now, 10 as the window's sends leave, the last 10 a window after the first 10 went
    expect(etaSeconds({ requestsLeft: 70, rate: { ...rate, inWindow: 10 }, waiting: null })).toBeCloseTo(60, 0);
  });
  it('goes by the run’s own pace when the budget has room for everything left', () => {
    // 20 left, 50 free, but only 10 went in the last minute: 2 minutes, not 0
    expect(etaSeconds({ requestsLeft: 20, rate: { ...rate, inWindow: 10 }, waiting: null })).toBeCloseTo(120, 0);
    expect(etaSeconds({ requestsLeft: 20, rate: { ...rate, inWindow: 0 }, waiting: null })).toBeNull();
  });
  it('shows none on a young run’s first lines, when its few sends say nothing of its pace', () => {
    // the first details line of a run under a 600/min budget: 14 sends (agents, tools, list pages) in its first 3 s
    const young = { inWindow: 14, budget: 600, windowMs: 60_000, leaveInMs: Array.from({ length: 14 }, (_, i) => 57_000 + i * 200) };
    expect(etaSeconds({ requestsLeft: 400, rate: young, waiting: null })).toBeNull();
    expect(progressLine(progress({ detailsDone: 0, detailsTotal: 400, requestsLeft: 400, rate: young }))).not.toContain('ETA');
    // 200 sends over the last 20 s: a pace of 10 a second, so 400 more take 40 s
    const steady = { inWindow: 200, budget: 600, windowMs: 60_000, leaveInMs: Array.from({ length: 200 }, (_, i) => 40_000 + i * 100) };
    expect(etaSeconds({ requestsLeft: 400, rate: steady, waiting: null })).toBeCloseTo(40, 0);
    expect(progressLine(progress({ detailsDone: 200, detailsTotal: 600, requestsLeft: 400, rate: steady }))).toContain('ETA 40s');
  });
  it('counts down while the limiter waits for its next slot, rather than freezing', () => {
    const at = (nextInMs: number) =>
      etaSeconds({ requestsLeft: 45, rate: { inWindow: 19, budget: 19, windowMs: 20_000 }, waiting: { reason: 'own-window', forMs: 20_000 - nextInMs, nextInMs } });
    expect(at(14_000)).toBeGreaterThan(at(9_000)!);
    expect(at(9_000)).toBeGreaterThan(at(4_000)!);
    expect(at(14_000)! - at(4_000)!).toBeCloseTo(10, 0);
  });
  it('adds a Retry-After pause still running', () => {
    const waiting = { reason: 'retry-after' as const, forMs: 3_000, nextInMs: 30_000 };
    expect(etaSeconds({ requestsLeft: 5, rate: { ...rate, inWindow: 0 }, waiting })).toBe(30);
  });
  it('is unknown while nothing says what is left, and endless while the budget is 0', () => {
    expect(etaSeconds({ requestsLeft: null, rate, waiting: null })).toBeNull();
    // nothing left to send while answers are awaited: no ETA rather than 0
    expect(etaSeconds({ requestsLeft: 0, rate, waiting: null })).toBeNull();
    expect(progressLine(progress({ requestsLeft: 0 }))).not.toContain('ETA');
    expect(etaSeconds({ requestsLeft: 5, rate: { ...rate, budget: 0 }, waiting: null })).toBe(Infinity);
    expect(progressLine(progress({ phase: 'dimensions', requestsLeft: null, detailsTotal: 0 }))).not.toContain('ETA');
    expect(progressLine(progress({ rate: { ...rate, budget: 0 } }))).toContain('ETA ?');
  });
  it('is the listing’s own while listing, and none while agents and tools are fetched', () => {
    const line = progressLine(progress({ phase: 'listing', detailsTotal: 0, detailsDone: 0, requestsLeft: 12, rate: { ...rate, inWindow: 6 } }));
    expect(line).toContain('listing ETA 2m00s');
    expect(progressLine(progress({ phase: 'dimensions', detailsTotal: 0, detailsDone: 0, requestsLeft: 2, rate: { ...rate, inWindow: 60 } }))).not.toContain('ETA');
  });
});

describe('the line', () => {
  it('names the listing window, and the details phase by its count', () => {
    const listing = progressLine(progress({ phase: 'listing', detailsTotal: 0, detailsDone: 0, listed: 400, listTotal: null }));
    expect(listing.startsWith('listing window beginning..2026-11-23T12:00:00.000Z · listed 400 · ')).toBe(true);
    const details = progressLine(progress());
    expect(details.startsWith('details 340/1200 · listed 1200/1200 · 1647 requests · ')).toBe(true);
    // the bar is for a terminal
    expect(fitParts(describeParts(progress(), true), 200)).toContain('details 340/1200 [######..............] · listed');
  });
  it('says a wait of more than 2 s, for how long and why, and when the next request may go', () => {
    const waiting = { reason: 'own-window' as const, forMs: 23_000, nextInMs: 12_000 };
    expect(progressLine(progress({ waiting }))).toContain('waiting 23s: this minute’s budget is spent (--max-rpm or the key’s limit); next request in 12s');
    const other = { reason: 'other-client' as const, forMs: 41_000, nextInMs: null };
    expect(progressLine(progress({ waiting: other }))).toMatch(/waiting 41s: another client, or an earlier run, is using the key’s budget$/);
    expect(progressLine(progress({ waiting: { ...waiting, forMs: 1_500 } }))).not.toContain('waiting');
  });
});

describe('fitting a terminal', () => {
  afterEach(() => vi.useRealTimers());

  it('counts columns, not bytes or UTF-16 units', () => {
    expect(columnsOf('a · b … c’')).toBe(10);
    expect(columnsOf('日本')).toBe(4);
    expect(columnsOf('e\u0301')).toBe(1);
  });
  it('cuts with an ellipsis inside the width', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdefg', 6)).toBe('abcde…');
    expect(columnsOf(cut('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
  });
  it('drops the least useful parts first, and never exceeds the width', () => {
    const waiting = { reason: 'other-client' as const, forMs: 41_000, nextInMs: null };
    const parts = describeParts(progress({ waiting, throttled: 3, errors: 2 }), true);
    const at79 = fitParts(parts, 79);
    expect(columnsOf(at79)).toBeLessThanOrEqual(79);
    expect(at79).toContain('details 340/1200');
    expect(at79).toContain('waiting 41s');
    expect(at79).not.toContain('[#');
    for (let width = 1; width <= 200; width++) {
      for (const phase of ['dimensions', 'listing', 'details'] as const) {
        const line = fitParts(describeParts(progress({ phase, waiting, throttled: 3, errors: 2 }), true), width);
        expect(columnsOf(line), `${phase} at ${width}: ${line}`).toBeLessThanOrEqual(width);
      }
    }
    // wide enough: nothing dropped
    expect(fitParts(parts, 500)).toContain('[######');
  });

  it('redraws in place on a terminal, one column short of its width, and clears the line at the end', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T12:00:00Z') });
    const writes: string[] = [];
    const stream = { isTTY: true, columns: 80, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream;
    const printer = progressPrinter(stream);
    const waiting = { reason: 'own-window' as const, forMs: 23_000, nextInMs: 12_000 };
    // large counts, errors and a wait: more than 80 columns, so the line must be cut
    const big = { listed: 123_456, listTotal: 123_456, detailsTotal: 120_000, requests: 164_700, throttled: 3, errors: 2, waiting };
    for (let i = 0; i < 20; i++) {
      printer.update(progress({ ...big, detailsDone: 34_000 + i }));
      vi.advanceTimersByTime(250);
    }
    printer.finish();
    expect(writes.length).toBeGreaterThan(10);
    for (const w of writes.slice(0, -1)) {
      expect(w.startsWith('\r\x1b[2K')).toBe(true);
      expect(columnsOf(w.slice(5))).toBeLessThanOrEqual(79);
      expect(w).toMatch(/^\r\x1b\[2Kdetails 340\d\d\/120000 · .*…$/);
      expect(w).not.toContain('\n');
    }
    expect(writes.at(-1)).toBe('\r\x1b[2K');
  });

  it('logs a line at least every 5 s otherwise, when called every 250 ms', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T12:00:00Z') });
    const lines: { at: number; text: string }[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push({ at: Date.now(), text: s }) } as unknown as NodeJS.WriteStream;
    const printer = progressPrinter(stream);
    for (let i = 0; i < 200; i++) {
      printer.update(progress({ phase: i < 30 ? 'listing' : 'details' }));
      vi.advanceTimersByTime(250);
    }
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (let i = 1; i < lines.length; i++) expect(lines[i]!.at - lines[i - 1]!.at).toBeLessThanOrEqual(5_000);
    for (const l of lines) expect(l.text).toMatch(/^2026-11-23T12:\d\d:\d\d\.\d{3}Z (listing|details) .*\n$/);
  });
});

describe('formatDuration', () => {
  it('reads as seconds, minutes or hours', () => {
    expect(formatDuration(4.4)).toBe('4s');
    expect(formatDuration(75)).toBe('1m15s');
    expect(formatDuration(3 * 3600 + 5 * 60)).toBe('3h05m');
    expect(formatDuration(Infinity)).toBe('?');
  });
});
