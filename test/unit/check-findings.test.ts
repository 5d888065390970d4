// The check's judgements, pure: what a page, a header or a timestamp says (src/check/findings.ts, timestamp-finding.ts).
import { describe, expect, it } from 'vitest';
import { describeEstimate, estimateSync, formatMinutes, heldSizePlan, judgeDetail, judgeFirstPage, judgeHeldSize, judgeLastPage, judgePageSize, judgeRateHeaders, judgeThrottled, lastPagePlan, pickConversation, readListBody, verdictLine, type Finding, type ListMetaSeen } from '../../src/check/findings.js';
import { classifyTimestamp, collectTimestamps, judgeTimestamps } from '../../src/check/timestamp-finding.js';

describe('pure judgements', () => {
  it('classifies timestamps by how they can be read as instants', () => {
    expect(classifyTimestamp('2026-11-01T08:00:00Z')).toEqual({ zone: 'utc', fractionDigits: 0 });
    expect(classifyTimestamp('2026-11-01T08:00:00+05:30')).toEqual({ zone: 'offset', fractionDigits: 0 });
    expect(classifyTimestamp('2026-11-01T08:00:00-0800')).toEqual({ zone: 'offset', fractionDigits: 0 });
    expect(classifyTimestamp('2026-11-01T08:00:00.123456789+00:00')).toEqual({ zone: 'offset', fractionDigits: 9 });
    expect(classifyTimestamp('2026-11-01T08:00:00.5Z')).toEqual({ zone: 'utc', fractionDigits: 1 });
    expect(classifyTimestamp('2026-11-01T08:00Z')).toEqual({ zone: 'utc', fractionDigits: 0 });
    expect(classifyTimestamp('2026-11-01T08:00:00')).toEqual({ zone: 'local', fractionDigits: 0 });
    expect(classifyTimestamp('2026-11-01T08:00:00.250')).toEqual({ zone: 'local', fractionDigits: 3 });
    for (const bad of ['2026-11-01', '2026-11-01 08:00:00Z', '2026-02-30T08:00:00Z', '2026-11-01T25:00:00Z', '2026-11-01T08:00:00+05', 'the 3rd of never', '1793520000']) {
      expect(classifyTimestamp(bad), bad).toEqual({ zone: 'unreadable', fractionDigits: 0 });
    }
  });

  it('judges a set of timestamps: offsets missing or unreadable fail, Z and offsets pass', () => {
    expect(judgeTimestamps(['2026-11-01T08:00:00Z', '2026-11-01T08:00:00+05:30'])).toMatchObject({
      status: 'ok',
      message: 'timestamps: ISO 8601, in UTC (Z) and with offsets (e.g. 2026-11-01T08:00:00Z, 2026-11-01T08:00:00+05:30), fractions of a second: no',
    });
    const local = judgeTimestamps(['2026-11-01T08:00:00Z', '2026-11-01T08:00:00']);
    expect(local.status).toBe('fail');
    expect(local.message).toMatch(/1 of 2 have no UTC offset \(e\.g\. 2026-11-01T08:00:00\), so they cannot be read as instants/);
    expect(judgeTimestamps(['2026-11-01T08:00:00Z', 'yesterday']).status).toBe('fail');
    const nanos = judgeTimestamps(['2026-11-01T08:00:00.123456789Z', '2026-11-01T08:00:01Z']);
    expect(nanos.message).toMatch(/fractions of a second: yes, on 1 of 2, up to 9 digits \(the database keeps microseconds\)$/);
    expect(judgeTimestamps([]).status).toBe('skip');
  });

  it('collects started_at, ended_at and every entry time, skipping nulls', () => {
    const list = [{ started_at: 'a', ended_at: null }, { started_at: 'b', ended_at: 'c' }, 'junk'];
    const detail = { data: { started_at: 'd', ended_at: 'e', transcript: [{ at: 'f' }], tool_calls: [{ at: 'g' }], node_path: [{ at: 'h' }, {}] } };
    expect(collectTimestamps(list, detail)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  });

  const meta = (m: Partial<ListMetaSeen>): ListMetaSeen => ({ page: 1, perPage: 200, total: 4213, nextPage: 2, ...m });

  it('a first page adds up when its items, total, per_page and next_page agree', () => {
    expect(judgeFirstPage({ items: 200, meta: meta({}), requestedPerPage: 200 })).toMatchObject({ status: 'ok', message: 'first page adds up: 200 items, total 4,213, next_page 2' });
    expect(judgeFirstPage({ items: 50, meta: meta({ perPage: 50 }), requestedPerPage: 200 }).status).toBe('ok');
    expect(judgeFirstPage({ items: 12, meta: meta({ total: 12, nextPage: null }), requestedPerPage: 200 })).toMatchObject({ status: 'ok', message: 'first page adds up: 12 items, total 12, next_page null' });
    expect(judgeFirstPage({ items: 0, meta: meta({ total: 0, nextPage: null }), requestedPerPage: 200 }).status).toBe('ok');
    // a next page announced after a full last page: harmless
    expect(judgeFirstPage({ items: 200, meta: meta({ total: 200, nextPage: 2 }), requestedPerPage: 200 }).status).toBe('ok');
  });

  it('a short first page of several: a count off or a misreported page size, judged as sync will', () => {
    const short = judgeFirstPage({ items: 198, meta: meta({}), requestedPerPage: 200 });
    expect(short).toMatchObject({ status: 'warn', values: { serverCountExcess: 2, countOffRun: null, storedNotServed: 0, database: null } });
    expect(short.message).toBe(
      "first page is short: 198 items, but total 4,213 at 200 per page means 200 — either the server's count is off: it counts at least 2 conversations more than it serves, " +
        'or it serves fewer per page than meta.per_page says (one page cannot tell which): sync pages by what the first page held (198 per page), which lists all of a server that serves that many; ' +
        'a count off sync verifies once: its first run narrows the listing down and reports it short (exit 1); the next finds the same shortfall with every stored conversation served again, ' +
        'and from then on what is served is trusted (exit 0, one warning line; a count with deleted or cached rows in it)',
    );
    // per_page echoes the request but fewer were served: the same two readings
    expect(judgeFirstPage({ items: 50, meta: meta({}), requestedPerPage: 200 })).toMatchObject({ status: 'warn', values: { serverCountExcess: 150 } });
    const read = (trusted: { runId: number; excess: number } | null, storedNotServed: string[] = [], reported: { runId: number; excess: number } | null = null) =>
      judgeFirstPage({ items: 198, meta: meta({}), requestedPerPage: 200 }, { kind: 'read', db: '/d.duckdb', record: { trusted, reported, storedNotServed } });
    // a run that trusted the listing's whole excess covers the first page's part of it
    const ok = read({ runId: 4, excess: 5 });
    expect(ok).toMatchObject({ status: 'ok', values: { countOffRun: { runId: 4, excess: 5, trusted: true } } });
    expect(ok.message).toMatch(/— the server's count is off: it counts at least 2 conversations more than it serves, as run 4 of \/d\.duckdb verified \(5 more in its window\): what is served is trusted/);
    expect(read({ runId: 4, excess: 2 }).status).toBe('ok');
    // fewer than the page alone shows: the count moved, sync verifies it again
    const less = read({ runId: 4, excess: 1 });
    expect(less).toMatchObject({ status: 'warn' });
    expect(less.message).toMatch(/one page cannot tell which\); run 4 of \/d\.duckdb trusted 1 more, not at least 2: sync pages by what the first page held/);
    const once = read(null, [], { runId: 1, excess: 5 });
    expect(once).toMatchObject({ status: 'warn', values: { countOffRun: { runId: 1, excess: 5, trusted: false } } });
    expect(once.message).toMatch(/it counts at least 2 conversations more than it serves, as run 1 of \/d\.duckdb found and reported short: the next sync that finds the same 5 more/);
    // a stored conversation the page leaves out: sync will not trust it
    const lost = read({ runId: 4, excess: 5 }, ['c_1']);
    expect(lost).toMatchObject({ status: 'fail', values: { storedNotServed: 1 } });
    expect(lost.message).toMatch(/and 1 conversation \/d\.duckdb stores on the pages read is no longer served \(e\.g\. c_1\): sync trusts such a count only when every stored conversation is served again/);
  });

  it("a second look at sync's last page, at the size a short first page held, tells a misreported page size apart", () => {
    const page = { items: 150, meta: meta({ total: 500 }), requestedPerPage: 200 };
    expect(heldSizePlan(page)).toEqual({ page: 4, expectedItems: 50, perPage: 150 });
    // not short, or one page: nothing to tell apart
    expect(heldSizePlan({ items: 200, meta: meta({ total: 500 }), requestedPerPage: 200 })).toBeNull();
    expect(heldSizePlan({ items: 9, meta: meta({ total: 10, nextPage: null }), requestedPerPage: 200 })).toBeNull();
    expect(heldSizePlan({ items: 0, meta: meta({ total: 500 }), requestedPerPage: 200 })).toBeNull();
    const told = judgeHeldSize(page, { page: 4, expectedItems: 50, perPage: 150 }, 50, 500);
    expect(told?.first).toMatchObject({ status: 'warn', name: 'first-page', values: { servedPerPage: 150, claimedPerPage: 200 } });
    expect(told?.first?.message).toMatch(/^first page is short: 150 items where meta\.per_page says 200, and page 4 holds the 50 that total 500 leaves at 150 per page: the server serves 150 per page/);
    expect(told?.last).toMatchObject({ status: 'ok', name: 'last-page', message: 'last page adds up at 150 per page (what the first page held): page 4 has 50 items, as total says' });
    // short there too (rows counted but not served as well): a count off at the size sync pages by; the first page's finding stands
    const short = judgeHeldSize(page, { page: 4, expectedItems: 50, perPage: 150 }, 47, 500);
    expect(short?.first).toBeNull();
    expect(short?.last).toMatchObject({ status: 'warn', name: 'last-page', values: { serverCountExcess: 3, lastPage: 4, servedPerPage: 150 } });
    expect(short?.last.message).toMatch(/^last page is short at 150 per page \(what the first page held\): page 4 has 47 items where total means 50 — the server's count is off: it counts 3 conversations more than it serves: sync verifies this once/);
    expect(judgeHeldSize(page, { page: 4, expectedItems: 50, perPage: 150 }, 0, 500)?.last.message).toMatch(/it counts at least 50 conversations more/);
    // longer than total leaves there, or a total that moved: the first look's findings stand
    expect(judgeHeldSize(page, { page: 4, expectedItems: 50, perPage: 150 }, 51, 500)).toBeNull();
    expect(judgeHeldSize(page, { page: 4, expectedItems: 50, perPage: 150 }, 50, 510)).toBeNull();
  });

  it('a first page does not add up when it is empty or longer than it can be, or total is missing', () => {
    expect(judgeFirstPage({ items: 0, meta: meta({}), requestedPerPage: 200 })).toMatchObject({ status: 'fail' });
    expect(judgeFirstPage({ items: 201, meta: meta({}), requestedPerPage: 200 }).message).toMatch(/^first page does not add up: 201 items, but total 4,213 at 200 per page means 200/);
    // a one-page listing that ends short is a count off: what sync does with it is below
    expect(judgeFirstPage({ items: 9, meta: meta({ total: 10, nextPage: null }), requestedPerPage: 200 })).toMatchObject({ status: 'warn', values: { serverCountExcess: 1 } });
    expect(judgeFirstPage({ items: 0, meta: meta({ total: 10, nextPage: null }), requestedPerPage: 200 }).status).toBe('fail');
    expect(judgeFirstPage({ items: 200, meta: meta({ total: null }), requestedPerPage: 200 }).status).toBe('fail');
    expect(judgeFirstPage({ items: 200, meta: meta({ nextPage: null }), requestedPerPage: 200 })).toMatchObject({ status: 'warn' });
    expect(judgeFirstPage({ items: 200, meta: meta({ nextPage: undefined }), requestedPerPage: 200 })).toMatchObject({ status: 'warn' });
  });

  it('page size: as asked is ok, a cap is a warning naming the served size', () => {
    expect(judgePageSize({ items: 200, meta: meta({}), requestedPerPage: 200 }).status).toBe('ok');
    expect(judgePageSize({ items: 50, meta: meta({ perPage: 50 }), requestedPerPage: 200 })).toMatchObject({
      status: 'warn',
      message: 'page size: asked for 200, the server serves 50 (meta.per_page 50): listing takes 4× as many pages',
      values: { requestedPerPage: 200, servedPerPage: 50 },
    });
    expect(judgePageSize({ items: 200, meta: meta({ perPage: null }), requestedPerPage: 200 }).status).toBe('warn');
  });

  it('the last page: where it is, and whether it holds what total says', () => {
    const page = { items: 50, meta: meta({ perPage: 50 }), requestedPerPage: 200 };
    expect(lastPagePlan(page)).toEqual({ page: 85, expectedItems: 13 });
    expect(lastPagePlan({ items: 12, meta: meta({ total: 12, nextPage: null }), requestedPerPage: 200 })).toBeNull();
    expect(judgeLastPage({ page: 85, expectedItems: 13 }, 13, 4213, 4213).status).toBe('ok');
    // short under a total that moved between the pages, or longer than total says: does not add up
    const moved = judgeLastPage({ page: 85, expectedItems: 13 }, 10, 4213, 4220);
    expect(moved.status).toBe('fail');
    expect(moved.message).toMatch(/^last page does not add up: page 85 has 10 items where total means 13 \(meta.total was 4,213 on that page\): /);
    expect(judgeLastPage({ page: 85, expectedItems: 13 }, 14, 4213, 4213).status).toBe('fail');
  });

  it('a listing that ends short under a steady total: what sync will do with the count off', () => {
    const plan = { page: 85, expectedItems: 13 };
    const noDb = judgeLastPage(plan, 10, 4213, 4213);
    expect(noDb).toMatchObject({ status: 'warn', values: { serverCountExcess: 3, countOffRun: null, storedNotServed: 0, database: null } });
    expect(noDb.message).toBe(
      "last page is short: page 85 has 10 items where total means 13 — the server's count is off: it counts 3 conversations more than it serves: " +
        'sync verifies this once: its first run narrows the listing down and reports it short (exit 1); the next finds the same 3 more with every ' +
        'stored conversation served again, and from then on what is served is trusted (exit 0, one warning line; a count with deleted or cached rows in it)',
    );
    // an empty last page: the server may count still more
    expect(judgeLastPage(plan, 0, 4213, 4213).message).toMatch(/it counts at least 13 conversations more than it serves: /);
    const read = (trusted: { runId: number; excess: number } | null, storedNotServed: string[] = [], reported: { runId: number; excess: number } | null = null) =>
      judgeLastPage(plan, 10, 4213, 4213, { kind: 'read', db: '/d.duckdb', record: { trusted, reported, storedNotServed } });
    expect(read({ runId: 7, excess: 3 })).toMatchObject({ status: 'ok', values: { countOffRun: { runId: 7, excess: 3, trusted: true }, database: '/d.duckdb' } });
    // reported short once, after any trusted run: the next sync verifies it
    const once = read(null, [], { runId: 1, excess: 3 });
    expect(once).toMatchObject({ status: 'warn', values: { countOffRun: { runId: 1, excess: 3, trusted: false } } });
    expect(once.message).toMatch(/it counts 3 conversations more than it serves, as run 1 of \/d\.duckdb found and reported short: the next sync that finds the same 3 more with every stored conversation served again has it verified/);
    expect(read({ runId: 7, excess: 3 }, [], { runId: 8, excess: 3 })).toMatchObject({ status: 'ok' });
    expect(read(null, [], { runId: 1, excess: 5 }).message).toMatch(/: sync verifies this once: /);
    expect(read({ runId: 7, excess: 3 }).message).toMatch(/it counts 3 conversations more than it serves, as run 7 of \/d\.duckdb verified: what is served is trusted /);
    expect(read({ runId: 7, excess: 5 })).toMatchObject({ status: 'warn' });
    expect(read({ runId: 7, excess: 5 }).message).toMatch(/; run 7 of \/d\.duckdb trusted 5 more, not 3: sync verifies this once/);
    expect(read(null)).toMatchObject({ status: 'warn' });
    const lost = read({ runId: 7, excess: 3 }, ['c_1', 'c_2']);
    expect(lost).toMatchObject({ status: 'fail', values: { storedNotServed: 2 } });
    expect(lost.message).toMatch(/and 2 conversations \/d\.duckdb stores on the pages read are no longer served \(e\.g\. c_1\): sync trusts such a count only when/);
    const unread = judgeLastPage(plan, 10, 4213, 4213, { kind: 'unread', db: '/d.duckdb', reason: 'database /d.duckdb stayed locked by another process: try again shortly' });
    expect(unread).toMatchObject({ status: 'warn' });
    expect(unread.message).toMatch(/\(\/d\.duckdb not read: database \/d\.duckdb stayed locked by another process: try again shortly\)$/);
  });

  it('a list body must be {data: [...], meta: {...}}', () => {
    expect(readListBody({ data: [], meta: { page: 1, per_page: 50, total: 0, next_page: null } })).toEqual({
      data: [],
      meta: { page: 1, perPage: 50, total: 0, nextPage: null },
    });
    expect(readListBody([{ id: 'x' }])).toEqual({ problem: 'the body is not a JSON object' });
    expect(readListBody({ items: [], meta: {} })).toEqual({ problem: '`data` is not an array' });
    expect(readListBody({ data: [] })).toEqual({ problem: '`meta` is missing' });
    expect(readListBody({ data: [], meta: { total: '12' } })).toMatchObject({ meta: { total: null, nextPage: undefined } });
  });

  it('rate headers: none is a warning; the values and how they moved are reported', () => {
    expect(judgeRateHeaders([{ status: 200 }, { status: 200 }]).status).toBe('warn');
    expect(judgeRateHeaders([{ status: 200 }]).message).toMatch(/no X-RateLimit-Limit or X-RateLimit-Remaining headers/);
    const fine = judgeRateHeaders([{ limit: 60, remaining: 59 }, { limit: 60, remaining: 58 }]);
    expect(fine).toMatchObject({ status: 'ok', message: 'rate limit: the server reports 60 per window, 58 remaining now', values: { limit: 60, remaining: 58 } });
    const shared = judgeRateHeaders([{ limit: 60, remaining: 40 }, { limit: 60, remaining: 38 }]);
    expect(shared.message).toMatch(/the first response left 40 of 60, so 19 were not available to the check/);
    expect(shared.message).toMatch(/remaining went 40, 38 over 2 requests/);
    expect(judgeRateHeaders([{ limit: 60, remaining: 0 }]).status).toBe('warn');
  });

  it('a 429 is reported with its Retry-After as sent', () => {
    expect(judgeThrottled('/spaces', '30', [{ limit: 60, status: 429 }]).message).toMatch(/^rate limit: the server answered 429 to GET \/spaces \(Retry-After 30 s, limit 60 per window\)/);
    expect(judgeThrottled('/spaces', null, []).message).toMatch(/\(no Retry-After header\)/);
    expect(judgeThrottled('/spaces', 'Wed, 21 Oct 2026 07:28:00 GMT', []).values).toMatchObject({ retryAfterSeconds: null, retryAfter: 'Wed, 21 Oct 2026 07:28:00 GMT' });
  });

  it('picks a finished conversation for the detail, and judges the detail like sync does', () => {
    expect(pickConversation([{ id: 'open', ended_at: null, outcome: null }, { id: 'done', ended_at: 'x', outcome: 'completed' }])).toBe('done');
    expect(pickConversation([{ id: 'open', ended_at: null, outcome: null }])).toBe('open');
    expect(pickConversation([{}, 'x'])).toBeNull();
    const detail = { data: { id: 'c1', started_at: '2026-11-01T08:00:00Z', ended_at: null, tool_calls: [], node_path: [] } };
    expect(judgeDetail(detail, 'c1')).toMatchObject({ status: 'ok', message: expect.stringMatching(/transcript absent \(a confidential space/) });
    expect(judgeDetail({ data: { ...detail.data, transcript: {} } }, 'c1')).toMatchObject({ status: 'warn', message: expect.stringMatching(/would be set aside: transcript is an object/) });
    expect(judgeDetail({ data: { ...detail.data, id: 'c2' } }, 'c1').status).toBe('warn');
    expect(judgeDetail({ data: { id: 'c1', started_at: '2026-11-01T08:00:00Z', transcript: [] } }, 'c1').status).toBe('warn');
  });

  it('estimates a first sync from the total, the served page size and the limit', () => {
    const e = estimateSync(4213, 50, 60);
    expect(e).toMatchObject({ listPages: 85, details: 4213, requests: 4298, perMinute: 60, perMinuteReported: true });
    expect(describeEstimate(e)).toBe('about 4,298 requests: 85 list pages + 4,213 details; at 60/min ≈ 1 h 12 min');
    expect(describeEstimate(estimateSync(0, 200, null))).toBe('about 1 request: 1 list page + 0 details; at 60/min (the documented limit) ≈ under a minute');
    expect(formatMinutes(59.4)).toBe('59 min');
    expect(formatMinutes(125)).toBe('2 h 05 min');
  });

  it('the verdict: a failure decides it, an unfinished check says so', () => {
    const ok = (name: Finding['name']): Finding => ({ status: 'ok', name, message: '', values: {} });
    const e = estimateSync(10, 200, 60);
    expect(verdictLine([ok('key')], e)).toBe('→ a sync would work (about 11 requests: 1 list page + 10 details; at 60/min ≈ under a minute)');
    expect(verdictLine([ok('key'), { ...ok('page-size'), status: 'warn' }], e)).toMatch(/^→ a sync would work, with the warnings above \(/);
    expect(verdictLine([ok('key'), { ...ok('first-page'), status: 'fail' }], e)).toBe('→ a sync would not work as things are: see first-page above');
    expect(verdictLine([{ ...ok('rate-limit'), status: 'fail', values: { unfinished: true } }], null)).toBe('→ the check could not finish: see rate-limit above');
  });
});
