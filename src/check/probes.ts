// `convoduck check`: a handful of requests (never more than MAX_CHECK_REQUESTS, retries and 429s
// included) that show what the server really does before a sync is scheduled against it.
// The judgements are pure (findings.ts); this module only spends the requests.

import { ApiClient, ApiError, AuthError, TransientError } from '../api/client.js';
import { RateLimiter, type RateObservation, type Ticket } from '../api/rate-limiter.js';
import { MAX_PER_PAGE } from '../api/types.js';
import { MAX_CHECK_REQUESTS } from './budget.js';
import {
  estimateSync,
  judgeDetail,
  judgeFirstPage,
  judgeLastPage,
  heldSizePlan,
  judgeHeldSize,
  judgePageSize,
  judgeRateHeaders,
  judgeThrottled,
  lastPagePlan,
  pickConversation,
  readListBody,
  servedPerPage,
  syncWouldWork,
  verdictLine,
  type Finding,
  type FindingName,
  type PageSeen,
  type SyncEstimate,
} from './findings.js';
import { collectTimestamps, judgeTimestamps } from './timestamp-finding.js';
import { pageRead, readCountOff } from './count-history.js';
import type { PageRead } from '../store/count-excess.js';
import type { CountOffSeen } from './count-finding.js';


/** The order findings are shown in, whatever order the requests found them. */
const ORDER: readonly FindingName[] = ['server', 'key', 'rate-limit', 'page-size', 'timestamps', 'first-page', 'last-page', 'detail'];

export interface CheckOptions {
  baseUrl: string;
  apiKey: string;
  /** per request; default 15 000 ms */
  timeoutMs?: number;
  /** longest the client's own rate limiter may hold a request back; default 3 000 ms */
  maxLimiterWaitMs?: number;
  now?: () => Date;
  /** called before each request, for progress */
  onStep?: (description: string) => void;
  /** the space's own cap on requests per minute (max_rpm): the estimate goes at no more */
  maxRpm?: number;
  /** the slug the config file names for this key: another space is a failed finding, and the check ends there */
  expectSpace?: string;
  /** whether to go on once GET /spaces named the key's space (a --space filter); false ends the check: outcome left-out */
  wanted?: (space: string) => boolean;
  /** the database sync writes for this space: read, as it is, only when the listing ends short (what sync found of the count) */
  dbPath?: string;
}

export interface CheckReport {
  /** works: no finding failed; fails: some did; refused: the key was refused (401/403); left-out: not a wanted space */
  outcome: 'works' | 'fails' | 'refused' | 'left-out';
  space: string | null;
  findings: Finding[];
  estimate: SyncEstimate | null;
  verdict: string;
  /** HTTP requests sent */
  requests: number;
  /** the refusal, one line without the key, when outcome is refused */
  refusal: string | null;
}

/** Gives up on a request the client's own rate limiter would hold back long. */
class ImpatientLimiter extends RateLimiter {
  heldBack = false;

  constructor(private readonly maxWaitMs: number) {
    // No reserve, no pacing: the check's few requests go out at once unless the budget is spent.
    super({ reserve: 0, pace: 'never' });
  }

  override async acquire(signal?: AbortSignal): Promise<Ticket> {
    const giveUp = new AbortController();
    const timer = setTimeout(() => {
      this.heldBack = true;
      giveUp.abort(new Error('the rate budget is spent'));
    }, this.maxWaitMs);
    try {
      return await super.acquire(signal ? AbortSignal.any([signal, giveUp.signal]) : giveUp.signal);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Ends the probe early: what stopped it is already a finding. */
class Stop extends Error {}

export async function checkServer(opts: CheckOptions): Promise<CheckReport> {
  const now = opts.now ?? (() => new Date());
  const limiter = new ImpatientLimiter(opts.maxLimiterWaitMs ?? 3_000);
  // every response's rate headers, and each 429's Retry-After as sent (null: none)
  const seen: RateObservation[] = [];
  const retryAfters: (string | null)[] = [];
  const client = new ApiClient({
    baseUrl: opts.baseUrl,
    apiKey: opts.apiKey,
    concurrency: 1,
    timeoutMs: opts.timeoutMs ?? 15_000,
    // One HTTP request per call: no retries, and a 429 is reported instead of waited out.
    maxRetries: 0,
    maxThrottled: 0,
    limiter,
    onEvent: (e) => {
      if (e.type !== 'rate') return;
      seen.push({ limit: e.limit, remaining: e.remaining, status: e.status });
      if (e.status === 429) retryAfters.push(e.retryAfter);
    },
  });
  const findings = new Map<FindingName, Finding>();
  const add = (f: Finding): void => void findings.set(f.name, f);
  let space: string | null = null;
  let refusal: string | null = null;
  let leftOut = false;
  let listed: { total: number; served: number } | null = null;
  // Whatever was read before the probe stopped still shows how the server writes timestamps.
  let listItems: unknown[] | null = null;
  let detailJson: unknown = undefined;
  /** the newest started_at of the first page (ms) */
  let newestMs: number | null = null;
  const checkStart = now();

  /** One GET, within the request budget; a failure becomes a finding and stops the probe. */
  const call = async <T>(what: FindingName, path: string, run: () => Promise<T>): Promise<T> => {
    // The probe's steps stay under the budget; this holds it should a step be added.
    if (client.stats.requests >= MAX_CHECK_REQUESTS) throw new Stop();
    opts.onStep?.(`GET ${path}`);
    try {
      return await run();
    } catch (err) {
      if (err instanceof AuthError) {
        refusal = err.message;
        // Once the key was accepted, a refusal belongs to the step it stopped (a key revoked mid-check).
        const name = findings.has('key') ? what : 'key';
        add({ status: 'fail', name, message: `key refused: ${err.message}`, values: { refused: true, httpStatus: err.status, code: err.code, path } });
      } else if (err instanceof ApiError && err.status === 429) {
        add(judgeThrottled(path, retryAfters.at(-1) ?? null, seen));
      } else if (limiter.heldBack) {
        const last = seen.at(-1);
        add({
          status: 'fail',
          name: 'rate-limit',
          message: `rate limit: the key's budget is spent right now (${last?.remaining ?? 0} remaining of ${last?.limit ?? '?'}), so the next request would have to wait; run check again in a minute`,
          values: { limit: last?.limit ?? null, remaining: last?.remaining ?? null, heldBack: true, unfinished: true },
        });
      } else {
        const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
        // 5xx, timeouts, dropped connections: a sync retries them, the check (one request each) cannot.
        const passing = err instanceof TransientError || (err instanceof ApiError && err.status === null);
        const name = what === 'key' ? 'server' : what;
        add({
          status: 'fail',
          name,
          message: `${name}: ${message}${passing ? ' (the check does not retry; a sync would)' : ''}`,
          values: { httpStatus: err instanceof ApiError ? err.status : null, code: err instanceof ApiError ? err.code : null, path, unfinished: passing },
        });
      }
      throw new Stop();
    }
  };

  try {
    const spaceRecord = await call('key', '/spaces', () => client.getSpace());
    space = spaceRecord.slug;
    if (opts.expectSpace !== undefined && opts.expectSpace !== space) {
      const message =
        `key accepted, but it belongs to space ${JSON.stringify(space)}, not ${JSON.stringify(opts.expectSpace)} as the config says: ` +
        'fix the slug (or the key); a sync would stop before storing anything';
      add({ status: 'fail', name: 'key', message, values: { space, expectedSpace: opts.expectSpace } });
      throw new Stop();
    }
    if (opts.wanted !== undefined && !opts.wanted(space)) {
      leftOut = true;
      throw new Stop();
    }
    add({ status: 'ok', name: 'key', message: `key accepted: space ${JSON.stringify(space)} (GET /spaces)`, values: { space } });

    const listPath = `/spaces/${encodeURIComponent(space)}/conversations`;
    // As a sync's window: the first page open at the top, the rest pinned on the server's timeline
    // (its newest conversation, or its clock when later), so arrivals during the check do not shift the pages.
    const firstJson = await call('first-page', `${listPath}?page=1&per_page=${MAX_PER_PAGE}`, () =>
      client.get(listPath, { page: 1, per_page: MAX_PER_PAGE }),
    );
    const first = readListBody(firstJson.json);
    if ('problem' in first) {
      add({ status: 'fail', name: 'first-page', message: `first page: not a list response ({data: [...], meta: {...}}): ${first.problem}`, values: { problem: first.problem } });
      throw new Stop();
    }
    const page: PageSeen = { items: first.data.length, meta: first.meta, requestedPerPage: MAX_PER_PAGE };
    add(judgePageSize(page));
    const pagesRead: PageRead[] = [pageRead(first.data)].filter((p) => p !== null);
    // A page that ends the listing short is judged again with what the database knows of the count.
    const withDatabase = async (judge: (seen?: CountOffSeen) => Finding): Promise<Finding> => {
      const finding = judge();
      if (typeof finding.values.serverCountExcess !== 'number' || opts.dbPath === undefined) return finding;
      return judge(await readCountOff(opts.dbPath, space!, pagesRead));
    };
    add(await withDatabase((seen) => judgeFirstPage(page, seen)));
    if (first.meta.total !== null) listed = { total: first.meta.total, served: servedPerPage(page) };

    listItems = first.data;
    newestMs = newestStarted(first.data);
    const to = new Date(Math.max(client.serverClock.serverNow(checkStart).getTime(), newestMs ?? -Infinity)).toISOString();
    const id = pickConversation(first.data);
    if (id === null) {
      add({ status: 'skip', name: 'detail', message: 'conversation detail: nothing listed to fetch', values: {} });
    } else {
      const detail = await call('detail', `${listPath}/${id}`, () => client.getConversation(space!, id));
      detailJson = detail.json;
      add(judgeDetail(detail.json, id));
    }

    const plan = lastPagePlan(page);
    if (plan) {
      const lastJson = await call('last-page', `${listPath}?page=${plan.page}&per_page=${MAX_PER_PAGE}`, () =>
        client.get(listPath, { to, page: plan.page, per_page: MAX_PER_PAGE }),
      );
      const last = readListBody(lastJson.json);
      if ('problem' in last) {
        add({ status: 'fail', name: 'last-page', message: `last page: not a list response: ${last.problem}`, values: { problem: last.problem } });
      } else {
        const lastRead = pageRead(last.data);
        if (lastRead) pagesRead.push(lastRead);
        const lastFinding = await withDatabase((seen) => judgeLastPage(plan, last.data.length, last.meta.total, first.meta.total, seen));
        add(lastFinding);
        // A short first page and a last page that does not add up: one more look, at sync's last page.
        const held = heldSizePlan(page);
        if (held && held.page !== plan.page && last.data.length !== plan.expectedItems) {
          const heldJson = await call('last-page', `${listPath}?page=${held.page}&per_page=${MAX_PER_PAGE}`, () =>
            client.get(listPath, { to, page: held.page, per_page: MAX_PER_PAGE }),
          );
          const heldPage = readListBody(heldJson.json);
          if (!('problem' in heldPage)) {
            const heldRead = pageRead(heldPage.data);
            if (heldRead) pagesRead.push(heldRead);
            const judge = (seen?: CountOffSeen) => judgeHeldSize(page, held, heldPage.data.length, heldPage.meta.total, seen);
            const told = judge();
            const withDb = told && typeof told.last.values.serverCountExcess === 'number' && opts.dbPath !== undefined ? judge(await readCountOff(opts.dbPath, space!, pagesRead)) : told;
            if (withDb) {
              if (withDb.first) add(withDb.first);
              add(withDb.last);
              listed = { total: first.meta.total!, served: held.perPage };
            }
          }
        }
      }
    }
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  } finally {
    await client.close();
  }

  if (listItems !== null) {
    const skewMs = client.serverClock.skewMs();
    const serverNowMs = client.serverClock.serverNow(checkStart).getTime();
    const tenths = (ms: number) => Math.round(ms / 100) / 10;
    add(judgeTimestamps(collectTimestamps(listItems, detailJson), {
      skewSeconds: skewMs === null ? null : tenths(skewMs),
      newestAheadSeconds: newestMs === null ? null : tenths(newestMs - serverNowMs),
    }));
  }
  // A refusal's rate headers say nothing about the key's budget.
  if (!findings.has('rate-limit') && refusal === null) add(judgeRateHeaders(seen));
  const limit = findings.get('rate-limit')?.values.limit;
  const estimate = listed && estimateSync(listed.total, listed.served, typeof limit === 'number' ? limit : null, opts.maxRpm ?? null);
  const ordered = ORDER.flatMap((name) => findings.get(name) ?? []);
  const outcome = leftOut ? 'left-out' : refusal !== null ? 'refused' : syncWouldWork(ordered) ? 'works' : 'fails';
  return {
    outcome,
    space,
    findings: ordered,
    estimate: outcome === 'works' ? estimate : null,
    verdict: verdictLine(ordered, outcome === 'works' ? estimate : null),
    requests: client.stats.requests,
    refusal,
  };
}

/** The latest readable started_at among list items (ms), or null. */
function newestStarted(items: readonly unknown[]): number | null {
  let newest: number | null = null;
  for (const item of items) {
    const text = typeof item === 'object' && item !== null ? (item as { started_at?: unknown }).started_at : undefined;
    const ms = typeof text === 'string' ? Date.parse(text) : NaN;
    if (Number.isFinite(ms) && (newest === null || ms > newest)) newest = ms;
  }
  return newest;
}
