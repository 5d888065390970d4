// The recordings' side of sync's progress (src/cli/sync/progress.ts): their count, bytes and bar
// in their own phase, the ETA of a backfill from the key's budget (each recording owed costs one
// Get conversation for a fresh link), a note that clears a terminal's line; and the
// --recordings-bandwidth rate (src/cli/sync/recordings.ts).
import { describe, expect, it } from 'vitest';
import { columnsOf, describeParts, etaSeconds, fitParts, progressLine, progressPrinter } from '../../src/cli/sync/progress.js';
import { parseBandwidth } from '../../src/cli/sync/recordings.js';
import type { SyncProgress } from '../../src/crawler/sync.js';

const rate = { inWindow: 60, budget: 60, windowMs: 60_000 };

function backfill(over: Partial<SyncProgress> = {}): SyncProgress {
  return {
    phase: 'recordings',
    listed: 1200,
    listTotal: 1200,
    detailsDone: 1200,
    detailsTotal: 1200,
    requests: 1500,
    throttled: 0,
    errors: 0,
    startedAt: new Date('2026-11-23T12:00:00Z'),
    window: { from: null, to: '2026-11-23T12:00:00.000Z' },
    rate,
    requestsLeft: 300,
    waiting: null,
    recordings: { done: 40, total: 340, bytes: 3_240_000 },
    ...over,
  };
}

describe('a backfill of recordings', () => {
  it('is named by its count and bytes, with the crawl’s counts after them', () => {
    expect(progressLine(backfill())).toMatch(/^recordings 40\/340 · 3\.2 MB · details 1200\/1200 · listed 1200\/1200 · 1500 requests · 60\/min \(budget 60\/min\) · ETA /);
    expect(fitParts(describeParts(backfill(), true), 200)).toMatch(/^recordings 40\/340 \[##\.{18}\] · 3\.2 MB · /);
  });

  it('has the ETA of its fresh links at the key’s budget', () => {
    // 300 links owed at 60 a minute, the window full: the next goes at once, the rest take 299 s
    expect(etaSeconds(backfill())).toBeCloseTo(299, 0);
    expect(progressLine(backfill())).toMatch(/ · ETA 4m59s$/);
    // half the budget taken by another client: twice as long
    expect(etaSeconds(backfill({ rate: { ...rate, budget: 30 } }))).toBeCloseTo(599, 0);
    // every link asked, downloads still running: no request left to time
    expect(progressLine(backfill({ requestsLeft: 0 }))).not.toContain('ETA');
    // while what is owed is not yet known: none
    expect(progressLine(backfill({ requestsLeft: null }))).not.toContain('ETA');
  });

  it('shows the downloads beside the crawl in the details phase, dropped first on a narrow terminal', () => {
    const details = backfill({ phase: 'details', detailsDone: 340, requestsLeft: 860, recordings: { done: 12, total: 20, bytes: 240_000 } });
    expect(progressLine(details)).toMatch(/^details 340\/1200 · recordings 12\/20 · 0\.2 MB · listed /);
    const narrow = fitParts(describeParts(details, true), 60);
    expect(narrow).toContain('details 340/1200');
    expect(narrow).not.toContain('recordings');
  });

  it('fits every width of a terminal', () => {
    const waiting = { reason: 'other-client' as const, forMs: 41_000, nextInMs: null };
    for (let width = 1; width <= 200; width++) {
      const line = fitParts(describeParts(backfill({ waiting, throttled: 3, errors: 2 }), true), width);
      expect(columnsOf(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      if (width >= 40) expect(line.startsWith('recordings 40/340'), `${width}: ${line}`).toBe(true);
    }
  });

  it('a note clears the drawn line on a terminal, and the next update draws it again', () => {
    const writes: string[] = [];
    const stream = { isTTY: true, columns: 80, write: (s: string) => writes.push(s) } as unknown as NodeJS.WriteStream;
    const printer = progressPrinter(stream);
    printer.update(backfill());
    printer.say('recordings of acme: 300 owed by earlier runs');
    printer.update(backfill({ recordings: { done: 41, total: 340, bytes: 3_250_000 } }));
    printer.finish();
    expect(writes[1]).toBe('\r\x1b[2Krecordings of acme: 300 owed by earlier runs\n');
    expect(writes[2]).toMatch(/^\r\x1b\[2Krecordings 41\/340 /);
    // in a log, a note is a line like any other
    const lines: string[] = [];
    const log = progressPrinter({ isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream);
    log.say('a note');
    expect(lines).toEqual(['a note\n']);
  });
});

describe('--recordings-bandwidth', () => {
  it('reads bytes per second in decimal or binary units, with or without /s', () => {
    expect(parseBandwidth('5MB/s')).toBe(5_000_000);
    expect(parseBandwidth('500kb/s')).toBe(500_000);
    expect(parseBandwidth('2MiB/s')).toBe(2 * 1024 * 1024);
    expect(parseBandwidth('1.5 GB')).toBe(1_500_000_000);
    expect(parseBandwidth('64000')).toBe(64_000);
  });
  it('refuses anything else in one line that says what to give', () => {
    for (const bad of ['', 'fast', '0', '-5MB/s', '5 MB per second', '5TB/s', '0.1']) {
      expect(() => parseBandwidth(bad), bad).toThrow(/^--recordings-bandwidth ".*" is not a rate — give bytes per second, e.g. 5MB\/s/);
    }
  });
});

describe('the ETA with none of our sends in the window', () => {
  const empty = { inWindow: 0, budget: 60, windowMs: 60_000, leaveInMs: [] as number[] };
  it('counts down with every request sent instead of standing still for a window at a time', () => {
    const etas = [120, 100, 90, 75, 61].map((left) => etaSeconds(backfill({ rate: empty, requestsLeft: left })));
    for (let i = 1; i < etas.length; i++) expect(etas[i]!, JSON.stringify(etas)).toBeLessThan(etas[i - 1]!);
    // 120 left at 60 a minute: the last goes about two minutes from now
    expect(etas[0]!).toBeCloseTo(119, 0);
  });
});
