// Pure judgements behind `convoduck check`: each turns what one response showed into a finding
// (ok, warn, fail, skip) with a one-line message and the measured values. No I/O.

import { normaliseDetail } from '../store/normalise.js';
import { judgeCountOff, type CountOffSeen } from './count-finding.js';

export type FindingStatus = 'ok' | 'warn' | 'fail' | 'skip';

export type FindingName = 'server' | 'key' | 'rate-limit' | 'page-size' | 'timestamps' | 'first-page' | 'last-page' | 'detail';

export interface Finding {
  status: FindingStatus;
  name: FindingName;
  /** one line for people; starts with what was checked */
  message: string;
  /** what was measured (limit, remaining, servedPerPage, total, …), for machines */
  values: Record<string, unknown>;
}

/** The rate limit the spec documents, assumed when the server sends no X-RateLimit-Limit. */
export const DOCUMENTED_PER_MINUTE = 60;

export const count = (n: number): string => n.toLocaleString('en-US');

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function wholeNumber(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null;
}

// ---- list pages ----------------------------------------------------------------------------------

export interface ListMetaSeen {
  page: number | null;
  perPage: number | null;
  total: number | null;
  /** undefined: the field is missing */
  nextPage: number | null | undefined;
}

/** `{data: [...], meta: {...}}`, or why the body is not a list response. */
export function readListBody(json: unknown): { data: unknown[]; meta: ListMetaSeen } | { problem: string } {
  if (!isObject(json)) return { problem: 'the body is not a JSON object' };
  if (!Array.isArray(json.data)) return { problem: '`data` is not an array' };
  if (!isObject(json.meta)) return { problem: '`meta` is missing' };
  const m = json.meta;
  const next = m.next_page === undefined ? undefined : m.next_page === null ? null : wholeNumber(m.next_page) ?? undefined;
  return {
    data: json.data,
    meta: { page: wholeNumber(m.page), perPage: wholeNumber(m.per_page), total: wholeNumber(m.total), nextPage: next },
  };
}

export interface PageSeen {
  /** items in `data` */
  items: number;
  meta: ListMetaSeen;
  /** the per_page the request asked for */
  requestedPerPage: number;
}

/** The page size the server really serves: meta.per_page, else what was asked. */
export function servedPerPage(page: PageSeen): number {
  return page.meta.perPage !== null && page.meta.perPage >= 1 ? page.meta.perPage : page.requestedPerPage;
}

export function judgePageSize(page: PageSeen): Finding {
  const asked = page.requestedPerPage;
  const served = page.meta.perPage;
  const values = { requestedPerPage: asked, servedPerPage: served };
  const name = 'page-size';
  if (served === null || served < 1) {
    return { status: 'warn', name, message: `page size: meta.per_page is missing or not a whole number; the first page held ${count(page.items)} items (asked for ${asked})`, values };
  }
  if (served === asked) return { status: 'ok', name, message: `page size: ${asked} per page, as asked`, values };
  if (served < asked) {
    return {
      status: 'warn',
      name,
      message: `page size: asked for ${asked}, the server serves ${served} (meta.per_page ${served}): listing takes ${Math.ceil(asked / served)}× as many pages`,
      values,
    };
  }
  return { status: 'warn', name, message: `page size: asked for ${asked}, meta.per_page says ${served}`, values };
}

/**
 * Whether page 1 holds what meta.total and the served page size promise, and next_page agrees. A
 * listing of one page that ends short is a count off (count-finding.ts), judged with `seen`; a
 * short first page of several is that or a page size misreported, judged as sync will treat both.
 */
export function judgeFirstPage(page: PageSeen, seen: CountOffSeen = { kind: 'no-db' }): Finding {
  const served = servedPerPage(page);
  const { total, nextPage } = page.meta;
  const values = { items: page.items, total, nextPage: nextPage ?? null, servedPerPage: served };
  const name = 'first-page';
  if (total === null) {
    return { status: 'fail', name, message: 'first page: meta.total is missing or not a whole number: a sync cannot tell when its listing is complete', values };
  }
  const expected = Math.min(served, total);
  if (total <= served && page.items < total && page.items > 0) {
    return judgeCountOff(name, `first page is short: ${count(page.items)} items, total ${count(total)}`, total - page.items, false, values, seen);
  }
  // Short inside a listing of several pages: judged as sync will, which pages by what it held.
  if (total > served && page.items > 0 && page.items < served) {
    const head = `first page is short: ${count(page.items)} items, but total ${count(total)} at ${served} per page means ${count(served)}`;
    return judgeCountOff(name, head, served - page.items, false, values, seen, { items: page.items });
  }
  if (page.items !== expected) {
    return {
      status: 'fail',
      name,
      message: `first page does not add up: ${count(page.items)} items, but total ${count(total)} at ${served} per page means ${count(expected)}: the server counts conversations it does not list, and a sync would report a listing error on every run`,
      values,
    };
  }
  const head = `first page adds up: ${count(page.items)} items, total ${count(total)}`;
  const expectedNext = total > served ? 2 : null;
  if (page.meta.page !== null && page.meta.page !== 1) {
    return { status: 'warn', name, message: `${head}, but meta.page is ${page.meta.page} (asked for page 1)`, values };
  }
  if (nextPage === undefined) return { status: 'warn', name, message: `${head}, but meta.next_page is missing`, values };
  if (nextPage === expectedNext) return { status: 'ok', name, message: `${head}, next_page ${nextPage ?? 'null'}`, values };
  if (nextPage === 2 && page.items === served) {
    return { status: 'ok', name, message: `${head}, next_page 2 on a full page (that page is empty: the server announces a next page after every full one)`, values };
  }
  return {
    status: 'warn',
    name,
    message: `${head}, but next_page is ${nextPage ?? 'null'} where total says ${expectedNext ?? 'null'}: the two disagree (a sync pages by total)`,
    values,
  };
}

/** Where the last page is, when there is more than one: page number and the items it must hold. */
export function lastPagePlan(page: PageSeen): { page: number; expectedItems: number } | null {
  const total = page.meta.total;
  if (total === null || total === 0) return null;
  const served = servedPerPage(page);
  const last = Math.ceil(total / served);
  if (last <= 1) return null;
  return { page: last, expectedItems: total - (last - 1) * served };
}

/**
 * Where a sync's last page is when the first page of several came back short: sync pages by what
 * that page held (crawler/plan.ts servedPageSize), so a server that serves fewer per page than
 * meta.per_page says lists completely at that size. Null when the first page was not short.
 */
export function heldSizePlan(page: PageSeen): { page: number; expectedItems: number; perPage: number } | null {
  const total = page.meta.total;
  const served = servedPerPage(page);
  if (total === null || total <= served || page.items < 1 || page.items >= served) return null;
  const last = Math.ceil(total / page.items);
  return { page: last, expectedItems: total - (last - 1) * page.items, perPage: page.items };
}

/**
 * A short first page told apart by a second look: sync's last page at the size the first page
 * held holds just what total leaves there, so the server serves that size whatever meta.per_page
 * says, and the listing adds up; holding fewer under the same total, sync meets a count off there
 * (first: null, the first page's finding stands). Null when it holds more, or the total moved.
 */
export function judgeHeldSize(
  page: PageSeen,
  plan: { page: number; expectedItems: number; perPage: number },
  items: number,
  total: number | null,
  seen: CountOffSeen = { kind: 'no-db' },
): { first: Finding | null; last: Finding } | null {
  if (total !== page.meta.total || total === null || items > plan.expectedItems) return null;
  if (items < plan.expectedItems) {
    // short at the size sync pages by as well: what sync meets is a count off, the first page's finding stands
    const head = `last page is short at ${count(plan.perPage)} per page (what the first page held): page ${plan.page} has ${count(items)} items where total means ${count(plan.expectedItems)}`;
    const values = { lastPage: plan.page, lastPageItems: items, lastPageExpected: plan.expectedItems, lastPageTotal: total, servedPerPage: plan.perPage };
    return { first: null, last: judgeCountOff('last-page', head, plan.expectedItems - items, items === 0, values, seen) };
  }
  const claimed = servedPerPage(page);
  const values = { items: page.items, total, nextPage: page.meta.nextPage ?? null, servedPerPage: plan.perPage, claimedPerPage: claimed };
  return {
    first: {
      status: 'warn',
      name: 'first-page',
      message:
        `first page is short: ${count(page.items)} items where meta.per_page says ${claimed}, and page ${plan.page} holds the ${count(items)} that total ${count(total)} leaves at ${count(plan.perPage)} per page: ` +
        `the server serves ${count(plan.perPage)} per page, not the ${claimed} meta.per_page says; sync pages by what the first page held, so its listing adds up (${count(plan.page)} list pages)`,
      values,
    },
    last: {
      status: 'ok',
      name: 'last-page',
      message: `last page adds up at ${count(plan.perPage)} per page (what the first page held): page ${plan.page} has ${count(items)} items, as total says`,
      values: { lastPage: plan.page, lastPageItems: items, lastPageExpected: plan.expectedItems, lastPageTotal: total, servedPerPage: plan.perPage },
    },
  };
}

/**
 * Whether the last page holds what meta.total says. One that ends short under the same total is
 * a count off (count-finding.ts), judged with `seen`; an empty one may hide a larger shortfall.
 */
export function judgeLastPage(
  plan: { page: number; expectedItems: number },
  items: number,
  total: number | null,
  firstTotal: number | null,
  seen: CountOffSeen = { kind: 'no-db' },
): Finding {
  const values = { lastPage: plan.page, lastPageItems: items, lastPageExpected: plan.expectedItems, lastPageTotal: total };
  const moved = total !== firstTotal ? ` (meta.total was ${total === null ? 'missing' : count(total)} on that page)` : '';
  const name = 'last-page';
  if (items === plan.expectedItems) {
    return { status: 'ok', name, message: `last page adds up: page ${plan.page} has ${count(items)} items, as total says`, values };
  }
  if (items < plan.expectedItems && total === firstTotal) {
    const head = `last page is short: page ${plan.page} has ${count(items)} items where total means ${count(plan.expectedItems)}`;
    return judgeCountOff(name, head, plan.expectedItems - items, items === 0, values, seen);
  }
  return {
    status: 'fail',
    name,
    message: `last page does not add up: page ${plan.page} has ${count(items)} items where total means ${count(plan.expectedItems)}${moved}: the server counts conversations it does not list, and a sync would report a listing error on every run`,
    values,
  };
}

// ---- detail --------------------------------------------------------------------------------------

/** The conversation whose detail to fetch: the first finished one listed, else the first one. */
export function pickConversation(listItems: readonly unknown[]): string | null {
  const withId = listItems.filter((c): c is Record<string, unknown> => isObject(c) && typeof c.id === 'string' && c.id !== '');
  const finished = withId.find((c) => c.ended_at !== null && c.ended_at !== undefined && c.outcome !== null && c.outcome !== undefined);
  return ((finished ?? withId[0])?.id as string | undefined) ?? null;
}

export function judgeDetail(json: unknown, id: string): Finding {
  const name = 'detail';
  // A detail a sync would set aside does not stop a sync, but every such conversation would lack its rows.
  const normalised = normaliseDetail(json, id);
  const problem = normalised.usable ? null : normalised.reason;
  if (problem) {
    return { status: 'warn', name, message: `conversation detail ${id} would be set aside: ${problem}; a sync keeps its raw body and goes on (see the api_drift report)`, values: { conversationId: id, problem } };
  }
  const data = (json as { data: Record<string, unknown> }).data;
  const lists = ['transcript', 'tool_calls', 'node_path'] as const;
  const present = lists.filter((f) => Array.isArray(data[f]));
  const absent = lists.filter((f) => !Array.isArray(data[f]));
  const values = { conversationId: id, present, absent };
  if (absent.length === 0) return { status: 'ok', name, message: `a conversation detail parses: ${present.join(', ')} present`, values };
  const onlyTranscript = absent.length === 1 && absent[0] === 'transcript';
  return {
    status: onlyTranscript ? 'ok' : 'warn',
    name,
    message: `a conversation detail parses: ${present.join(', ') || 'none of transcript, tool_calls, node_path'} present, ${absent.join(', ')} absent${onlyTranscript ? ' (a confidential space leaves the transcript out)' : ''}`,
    values,
  };
}

// ---- rate limit ----------------------------------------------------------------------------------

export interface RateSeen {
  limit?: number | undefined;
  remaining?: number | undefined;
  status?: number | undefined;
}

/** What the rate headers of the check's own responses (oldest first) say. */
export function judgeRateHeaders(seen: readonly RateSeen[]): Finding {
  const name = 'rate-limit';
  const limits = seen.map((s) => s.limit).filter((v): v is number => v !== undefined);
  const remainingSeen = seen.map((s) => s.remaining ?? null);
  const remainders = remainingSeen.filter((v): v is number => v !== null);
  const limit = limits.at(-1) ?? null;
  const remaining = remainders.at(-1) ?? null;
  const values = { limit, remaining, remainingSeen, responses: seen.length };
  if (seen.length === 0) return { status: 'skip', name, message: 'rate limit: no response to read', values };
  if (limit === null && remaining === null) {
    return {
      status: 'warn',
      name,
      message: `rate limit: the server sends no X-RateLimit-Limit or X-RateLimit-Remaining headers: a sync assumes the documented ${DOCUMENTED_PER_MINUTE} per minute and waits out any 429`,
      values,
    };
  }
  if (limit === null) {
    return { status: 'warn', name, message: `rate limit: the server reports ${remaining} remaining but no X-RateLimit-Limit: a sync assumes ${DOCUMENTED_PER_MINUTE} per minute`, values };
  }
  if (remaining === null) {
    return { status: 'warn', name, message: `rate limit: the server reports ${limit} per window but no X-RateLimit-Remaining`, values };
  }
  const notes: string[] = [];
  // Our first request is the only one of ours the first reading can include.
  const firstRemaining = remainders[0]!;
  const others = limit - firstRemaining - 1;
  if (others > 0) {
    notes.push(
      `the first response left ${firstRemaining} of ${limit}, so ${others} were not available to the check: another client of this key, a run less than a window ago, or a server that allows only short bursts`,
    );
  }
  if (remainders.length > 1 && !remainders.every((r, i) => i === 0 || r === remainders[i - 1]! - 1)) {
    notes.push(`remaining went ${remainders.join(', ')} over ${remainders.length} requests`);
  }
  const head = `rate limit: the server reports ${limit} per window, ${remaining} remaining now`;
  const message = notes.length > 0 ? `${head} (${notes.join('; ')})` : head;
  return { status: remaining === 0 ? 'warn' : 'ok', name, message, values };
}

/** A 429 the check met instead of an answer (it stops there: `unfinished`). */
export function judgeThrottled(path: string, retryAfter: string | null, seen: readonly RateSeen[]): Finding {
  const limit = seen.map((s) => s.limit).filter((v): v is number => v !== undefined).at(-1) ?? null;
  const retryAfterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  const wait =
    retryAfter === null ? 'no Retry-After header' : retryAfterSeconds !== null ? `Retry-After ${retryAfterSeconds} s` : `Retry-After ${JSON.stringify(retryAfter)}`;
  return {
    status: 'fail',
    name: 'rate-limit',
    message: `rate limit: the server answered 429 to GET ${path} (${wait}${limit !== null ? `, limit ${limit} per window` : ''}): the key's budget is spent right now (another client, or a sync running); run check again after that`,
    values: { limit, remaining: 0, retryAfter, retryAfterSeconds, throttled: true, unfinished: true },
  };
}

// ---- the verdict ---------------------------------------------------------------------------------

export interface SyncEstimate {
  listPages: number;
  details: number;
  requests: number;
  perMinute: number;
  /** whether perMinute is the server's reported limit (else the documented one) */
  perMinuteReported: boolean;
  /** whether perMinute is the space's own cap (max_rpm), below the key's limit */
  perMinuteCapped: boolean;
  minutes: number;
}

/** Requests a first sync spends on the conversations: every list page and every detail. */
export function estimateSync(total: number, served: number, limit: number | null, maxRpm: number | null = null): SyncEstimate {
  const listPages = Math.max(1, Math.ceil(total / Math.max(1, served)));
  const requests = listPages + total;
  const keyLimit = limit !== null && limit > 0 ? limit : DOCUMENTED_PER_MINUTE;
  const capped = maxRpm !== null && maxRpm > 0 && maxRpm < keyLimit;
  const perMinute = capped ? maxRpm : keyLimit;
  return { listPages, details: total, requests, perMinute, perMinuteReported: limit !== null && limit > 0, perMinuteCapped: capped, minutes: requests / perMinute };
}

export function formatMinutes(minutes: number): string {
  if (minutes < 1) return 'under a minute';
  const m = Math.round(minutes);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export function describeEstimate(e: SyncEstimate): string {
  const rate = `at ${e.perMinute}/min${e.perMinuteCapped ? ' (max_rpm)' : e.perMinuteReported ? '' : ' (the documented limit)'}`;
  return `about ${count(e.requests)} request${e.requests === 1 ? '' : 's'}: ${count(e.listPages)} list page${e.listPages === 1 ? '' : 's'} + ${count(e.details)} details; ${rate} ≈ ${formatMinutes(e.minutes)}`;
}

/** A sync would work unless some finding failed. */
export function syncWouldWork(findings: readonly Finding[]): boolean {
  return !findings.some((f) => f.status === 'fail');
}

export function verdictLine(findings: readonly Finding[], estimate: SyncEstimate | null): string {
  const est = estimate ? ` (${describeEstimate(estimate)})` : '';
  const failed = findings.filter((f) => f.status === 'fail');
  const stopped = failed.find((f) => f.values.unfinished === true);
  if (stopped) return `→ the check could not finish: see ${stopped.name} above`;
  if (failed.length > 0) return `→ a sync would not work as things are: see ${failed.map((f) => f.name).join(', ')} above`;
  const warned = findings.some((f) => f.status === 'warn');
  return `→ a sync would work${warned ? ', with the warnings above' : ''}${est}`;
}
