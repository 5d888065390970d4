// The HTTP transport under the API client (client.ts): rate-limited, retried, never leaking the key.
//
// - One undici Agent with keep-alive; at most `concurrency` requests hold a socket at a time, and
//   the RateLimiter spaces their SENDS, so many requests can be in flight while the key's budget
//   is respected (slow responses do not lower the rate at which requests are sent).
// - Transient failures (5xx, dropped connections, timeouts, truncated or non-JSON 2xx bodies) are
//   retried with exponential backoff and full jitter; a 429 pauses everybody as Retry-After says.
//   What each response means is decided in response.ts.
// - Redirects are never followed: the Authorization header must not reach another host.
// - No error message ever contains the API key.

import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { parseBaseUrl } from './base-url.js';
import { ApiError, TransientError } from './errors.js';
import { RateLimiter, type Ticket } from './rate-limiter.js';
import { ServerClock } from './server-clock.js';
import { Slots } from './slots.js';
import {
  bodyMatters,
  classifyNetworkError,
  connectFailure,
  classifyResponse,
  discard,
  readBody,
  readHead,
  throttleWaitMs,
  type Attempt,
  type GetResult,
} from './response.js';
import { watchSocketWrite } from './socket-writes.js';


export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export type ClientEvent =
  | { type: 'request'; method: string; path: string; attempt: number }
  | { type: 'response'; method: string; path: string; status: number; ms: number; attempt: number }
  /** a response's status and rate headers as sent (Retry-After raw: null when absent) */
  | { type: 'rate'; path: string; status: number; limit: number | undefined; remaining: number | undefined; retryAfter: string | null }
  | { type: 'network-error'; method: string; path: string; reason: string; ms: number; attempt: number }
  | { type: 'retry'; method: string; path: string; reason: string; attempt: number; delayMs: number }
  | { type: 'throttled'; method: string; path: string; retryAfterMs: number | null; count: number };

export interface ApiClientOptions {
  /** Ends with /api/v1. */
  baseUrl: string;
  apiKey: string;
  /** Our own cap per rate window (per minute by default). */
  maxRpm?: number | undefined;
  /** Sockets, and requests holding one at a time; default 32. */
  concurrency?: number | undefined;
  /** Rate window; default 60 000 ms. */
  windowMs?: number | undefined;
  /** Per attempt, headers and whole body; default 30 000 ms. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt for transient failures; default 6. */
  maxRetries?: number | undefined;
  /** 429s tolerated per call before giving up; default 20. */
  maxThrottled?: number | undefined;
  /** Refuse bodies larger than this; default 64 MiB. */
  maxBodyBytes?: number | undefined;
  /** Backoff: attempt n waits random(0, min(retryMaxDelayMs, retryBaseMs × 2^(n−1))); defaults 500 / 30 000. */
  retryBaseMs?: number | undefined;
  retryMaxDelayMs?: number | undefined;
  onEvent?: ((e: ClientEvent) => void) | undefined;
  /** Share one limiter between clients of the same key, or inject a test clock. */
  limiter?: RateLimiter | undefined;
  /** Aborting it ends every call at once, including calls waiting for the rate limit (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

/** Requests that could not connect, since the last response: what fails, and the attempt now due. */
export interface ConnectionTrouble {
  problem: string;
  attempt: number;
}

export interface ClientStats {
  /** HTTP requests actually sent, retries and 429s included (not those that never connected). */
  requests: number;
  /** 429 responses. */
  throttled: number;
  /** Retries scheduled for transient failures (429s not included). */
  retries: number;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const REDACTED = 'np_…redacted';

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

export class HttpClient {
  readonly baseUrl: URL;
  readonly limiter: RateLimiter;
  private readonly apiKey: string;
  private readonly agent: Agent;
  private readonly slots: Slots;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxThrottled: number;
  private readonly maxBodyBytes: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxDelayMs: number;
  private readonly windowMs: number;
  private readonly onEvent: ((e: ClientEvent) => void) | undefined;
  private readonly closing = new AbortController();
  private readonly counters: ClientStats = { requests: 0, throttled: 0, retries: 0 };
  private trouble: ConnectionTrouble | null = null;
  /** the server's clock against this machine's, from the Date header of every response */
  readonly serverClock = new ServerClock();

  constructor(opts: ApiClientOptions) {
    this.baseUrl = parseBaseUrl(opts.baseUrl);
    this.apiKey = opts.apiKey.trim();
    const concurrency = Math.max(1, Math.floor(opts.concurrency ?? 32));
    this.windowMs = opts.windowMs ?? 60_000;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? 6));
    this.maxThrottled = Math.max(0, Math.floor(opts.maxThrottled ?? 20));
    this.maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.retryBaseMs = opts.retryBaseMs ?? 500;
    this.retryMaxDelayMs = opts.retryMaxDelayMs ?? 30_000;
    this.onEvent = opts.onEvent;
    this.limiter =
      opts.limiter ??
      new RateLimiter({
        windowMs: this.windowMs,
        ...(opts.maxRpm !== undefined ? { maxRpm: opts.maxRpm } : {}),
      });
    this.slots = new Slots(concurrency);
    // Every request in flight listens for close(): hundreds at once is by design, not a leak.
    setMaxListeners(0, this.closing.signal);
    if (opts.signal) {
      const stop = opts.signal;
      if (stop.aborted) this.closing.abort(new Error('API client stopped'));
      else stop.addEventListener('abort', () => this.closing.abort(new Error('API client stopped')), { once: true });
    }
    this.agent = new Agent({
      connections: concurrency,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  get stats(): ClientStats {
    return { ...this.counters };
  }

  /** Requests failing to connect since the last response (null when the last one connected). */
  get connectionTrouble(): ConnectionTrouble | null {
    return this.trouble;
  }

  /** Destroys the connection pool; calls still waiting fail. */
  async close(): Promise<void> {
    this.closing.abort(new Error('API client closed'));
    await this.agent.destroy();
  }

  /** GET `path` (relative to the base URL, e.g. `/spaces`) and parse the JSON of a 2xx response. */
  async get(path: string, query: Query = {}): Promise<GetResult> {
    const url = this.buildUrl(path, query);
    const shown = `${url.pathname}${url.search}`;
    let retries = 0;
    let throttles = 0;
    for (let attempt = 1; ; attempt++) {
      const r = await this.attempt(url, shown, attempt);
      if (r.kind === 'ok') return r.result;
      if (r.kind === 'throttled') {
        throttles++;
        this.counters.throttled++;
        this.emit({ type: 'throttled', method: 'GET', path: shown, retryAfterMs: r.retryAfterMs, count: throttles });
        if (throttles > this.maxThrottled) {
          throw new TransientError(`GET ${shown}: still rate limited (429) after ${throttles} attempts; try again later or lower --max-rpm`, {
            status: 429,
            code: 'rate_limited',
            method: 'GET',
            path: shown,
            attempts: attempt,
          });
        }
        continue;
      }
      if (retries >= this.maxRetries) {
        throw new TransientError(this.redact(`GET ${shown}: ${r.reason} (gave up after ${attempt} attempts)`), {
          status: r.status,
          code: r.code,
          method: 'GET',
          path: shown,
          attempts: attempt,
          ...(r.raw !== undefined ? { raw: this.redact(r.raw) } : {}),
          ...(r.cause !== undefined ? { cause: r.cause } : {}),
        });
      }
      retries++;
      this.counters.retries++;
      const delayMs = Math.random() * Math.min(this.retryMaxDelayMs, this.retryBaseMs * 2 ** (retries - 1));
      this.emit({ type: 'retry', method: 'GET', path: shown, reason: r.reason, attempt, delayMs });
      try {
        await sleep(delayMs, undefined, { signal: this.closing.signal });
      } catch {
        throw this.closedError(shown);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  protected buildUrl(path: string, query: Query): URL {
    const rel = path.startsWith('/') ? path : `/${path}`;
    const url = new URL(`${this.baseUrl.origin}${this.baseUrl.pathname}${rel}`);
    if (url.origin !== this.baseUrl.origin || !url.pathname.startsWith(`${this.baseUrl.pathname}/`)) {
      throw new Error(`refusing to request ${JSON.stringify(path)}: it leaves the API's base URL`);
    }
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null) continue;
      url.searchParams.set(k, String(v));
    }
    return url;
  }

  private emit(e: ClientEvent): void {
    if (!this.onEvent) return;
    try {
      this.onEvent(e);
    } catch {
      // a logger's failure must not fail the request
    }
  }

  protected redact(text: string): string {
    // Anything shaped like a key goes, whoever sent it; prose such as "a Bearer token" stays.
    let out = text.replace(/\bnp_[A-Za-z0-9_\-]{4,}/g, REDACTED);
    if (this.apiKey.length >= 4) out = out.split(this.apiKey).join(REDACTED);
    return out;
  }

  private closedError(shown: string): ApiError {
    return new ApiError(`GET ${shown}: the API client was closed`, {
      status: null,
      code: 'closed',
      method: 'GET',
      path: shown,
    });
  }

  private async attempt(url: URL, shown: string, attempt: number): Promise<Attempt> {
    try {
      await this.slots.take(this.closing.signal);
    } catch {
      throw this.closedError(shown);
    }
    try {
      let ticket: Ticket;
      try {
        ticket = await this.limiter.acquire(this.closing.signal);
      } catch {
        throw this.closedError(shown);
      }
      return await this.send(url, shown, attempt, ticket);
    } finally {
      this.slots.give();
    }
  }

  private async send(url: URL, shown: string, attempt: number, ticket: Ticket): Promise<Attempt> {
    const started = performance.now();
    const sentAtWall = Date.now();
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new AttemptTimeout(this.timeoutMs)), this.timeoutMs);
    const signal = AbortSignal.any([timer.signal, this.closing.signal]);
    this.emit({ type: 'request', method: 'GET', path: shown, attempt });
    // Counted as sent once written or answered: an attempt still connecting may never be.
    let counted = false;
    const countSent = (): void => {
      if (!counted) this.counters.requests++;
      counted = true;
    };
    const responded = (status: number): void =>
      this.emit({ type: 'response', method: 'GET', path: shown, status, ms: performance.now() - started, attempt });
    let observed = false;
    let written = false;
    // The limiter recorded the send when it let it go; the server counts it from when it arrives.
    const unwatch = watchSocketWrite(url, () => {
      written = true;
      countSent();
      this.limiter.restamp(ticket, this.limiter.now());
    });
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.agent,
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          'user-agent': 'convoduck/0.1',
        },
      });
      const head = readHead(res.statusCode, res.headers);
      this.serverClock.observe(head.date, sentAtWall, Date.now());
      this.trouble = null;
      // A 429's pause starts with its observation: no other request slips out in between.
      const pauseMs = head.status === 429 ? throttleWaitMs(head, this.windowMs, Date.now()) : undefined;
      this.limiter.observe(ticket, { limit: head.limit, remaining: head.remaining, status: head.status, pauseMs });
      observed = true;
      countSent();
      this.emit({ type: 'rate', path: shown, status: head.status, limit: head.limit, remaining: head.remaining, retryAfter: head.retryAfter });
      let body: Buffer | null = null;
      if (!bodyMatters(head.status)) {
        await discard(res.body);
      } else if (head.contentLength !== undefined && head.contentLength > this.maxBodyBytes) {
        res.body.destroy();
        responded(head.status);
        throw this.tooLarge(shown, head.status, head.contentLength);
      } else {
        body = await readBody(res.body, this.maxBodyBytes);
        if (body === null) {
          responded(head.status);
          throw this.tooLarge(shown, head.status, undefined);
        }
      }
      responded(head.status);
      return classifyResponse(head, body, { shown, url, maxRetryAfterMs: this.windowMs, nowMs: Date.now(), redact: (t) => this.redact(t) });
    } catch (err) {
      const unreached = written || observed ? null : connectFailure(err, url.host);
      if (unreached !== null) {
        // Never sent: neither our count nor the server's window holds it.
        this.limiter.unsent(ticket);
        this.trouble = { problem: unreached, attempt: attempt + 1 };
      } else {
        countSent();
        if (!observed) this.limiter.release(ticket);
      }
      if (err instanceof ApiError) throw err;
      const ms = performance.now() - started;
      if (timer.signal.aborted && !this.closing.signal.aborted) {
        this.emit({ type: 'network-error', method: 'GET', path: shown, reason: 'timeout', ms, attempt });
        return { kind: 'retry', reason: `timed out: no complete response within ${this.timeoutMs} ms`, code: 'timeout', status: null };
      }
      if (this.closing.signal.aborted) throw this.closedError(shown);
      try {
        const retry = classifyNetworkError(err, shown, (t) => this.redact(t));
        this.emit({ type: 'network-error', method: 'GET', path: shown, reason: retry.reason, ms, attempt });
        return retry;
      } catch (failure) {
        this.emit({ type: 'network-error', method: 'GET', path: shown, reason: (failure as Error).message, ms, attempt });
        throw failure;
      }
    } finally {
      unwatch();
      clearTimeout(timeout);
    }
  }

  private tooLarge(shown: string, status: number, declared: number | undefined): ApiError {
    const size = declared === undefined ? 'more than' : `${declared} bytes, more than`;
    return new ApiError(`GET ${shown}: response body is ${size} the ${this.maxBodyBytes}-byte limit; refused`, {
      status,
      code: 'body_too_large',
      method: 'GET',
      path: shown,
    });
  }
}
