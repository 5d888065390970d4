// The server's clock read off its Date headers (src/api/server-clock.ts), and where an incremental
// listing resumes on the server's timeline (src/crawler/plan.ts).
import { describe, expect, it } from 'vitest';
import { ServerClock } from '../../src/api/server-clock.js';
import { endFromFirstPage, nextListedNewest } from '../../src/crawler/plan.js';

const at = (iso: string) => Date.parse(iso);

describe('ServerClock', () => {
  it('knows nothing before a readable Date header, and then keeps this machine’s now', () => {
    const clock = new ServerClock();
    clock.observe(undefined, 0, 10);
    clock.observe('not a date', 0, 10);
    expect(clock.skewMs()).toBeNull();
    expect(clock.serverNow(new Date('2026-11-27T12:00:00.250Z')).toISOString()).toBe('2026-11-27T12:00:00.250Z');
  });

  it('reads agreeing clocks as no skew: a Date header has whole seconds', () => {
    const clock = new ServerClock();
    // sent at .300, answered at .340, the header says the second it was written in
    clock.observe('Fri, 27 Nov 2026 12:00:00 GMT', at('2026-11-27T12:00:00.300Z'), at('2026-11-27T12:00:00.340Z'));
    expect(clock.skewMs()).toBe(0);
  });

  it('bounds a skew by the header’s second and the request’s round trip, narrowing over responses', () => {
    const clock = new ServerClock();
    // two hours behind: written between 10:00:00.000 and 10:00:00.999 on the server
    clock.observe('Fri, 27 Nov 2026 10:00:00 GMT', at('2026-11-27T12:00:00.300Z'), at('2026-11-27T12:00:00.400Z'));
    const first = clock.skewMs()!;
    expect(first).toBeLessThanOrEqual(-7_200_000 + 1_000);
    expect(first).toBeGreaterThanOrEqual(-7_200_000 - 400);
    clock.observe('Fri, 27 Nov 2026 10:00:05 GMT', at('2026-11-27T12:00:05.900Z'), at('2026-11-27T12:00:05.950Z'));
    expect(clock.skewMs()!).toBeLessThanOrEqual(first);
    expect(Math.abs(clock.skewMs()! + 7_200_000)).toBeLessThan(1_000);

    const ahead = new ServerClock();
    ahead.observe('Fri, 27 Nov 2026 12:15:00 GMT', at('2026-11-27T12:00:00.100Z'), at('2026-11-27T12:00:00.200Z'));
    expect(Math.abs(ahead.skewMs()! - 900_000)).toBeLessThan(1_000);
    expect(ahead.serverNow(new Date('2026-11-27T12:00:00.200Z')).getTime()).toBeGreaterThan(at('2026-11-27T12:14:59Z'));
  });

  it('starts again when the server’s clock jumps', () => {
    const clock = new ServerClock();
    clock.observe('Fri, 27 Nov 2026 12:00:00 GMT', at('2026-11-27T12:00:00.100Z'), at('2026-11-27T12:00:00.200Z'));
    expect(clock.skewMs()).toBe(0);
    clock.observe('Fri, 27 Nov 2026 13:00:01 GMT', at('2026-11-27T12:00:01.100Z'), at('2026-11-27T12:00:01.200Z'));
    expect(Math.abs(clock.skewMs()! - 3_600_000)).toBeLessThan(1_000);
  });
});

describe('where listing resumes', () => {
  const serverNow = new Date('2026-11-27T10:00:00Z');
  it('at the newest started_at the server sent, on its timeline', () => {
    expect(nextListedNewest(null, at('2026-11-27T09:40:00Z'), serverNow)?.toISOString()).toBe('2026-11-27T09:40:00.000Z');
    expect(nextListedNewest(new Date('2026-11-27T08:00:00Z'), at('2026-11-27T09:40:00Z'), serverNow)?.toISOString()).toBe('2026-11-27T09:40:00.000Z');
  });
  it('never past the server’s clock, never back, and unmoved by an empty window', () => {
    expect(nextListedNewest(null, at('2099-01-01T00:00:00Z'), serverNow)).toEqual(serverNow);
    const previous = new Date('2026-11-27T09:50:00Z');
    expect(nextListedNewest(previous, at('2026-11-27T09:40:00Z'), serverNow)).toEqual(previous);
    expect(nextListedNewest(previous, null, serverNow)).toBe(previous);
    expect(nextListedNewest(null, null, serverNow)).toBeNull();
  });
  it('takes the window’s end from its first page unless a backfill ends before the server’s now', () => {
    expect(endFromFirstPage({ now: serverNow })).toBe(true);
    expect(endFromFirstPage({ now: serverNow, until: new Date('2026-11-20T00:00:00Z') })).toBe(false);
    expect(endFromFirstPage({ now: serverNow, until: new Date('2026-12-01T00:00:00Z') })).toBe(true);
  });
});
