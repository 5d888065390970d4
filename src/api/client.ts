// HTTP client for the Agent Management API (shared/api/agent-management-api.md).
//
// - One undici Agent with keep-alive; at most `concurrency` requests hold a socket at a time, and
//   the RateLimiter spaces their SENDS, so many requests can be in flight while the key's rolling
//   budget is respected (60 req/min with 1.5 s latency still sends 60 req/min).
// - Transient failures (5xx, dropped connections, timeouts, truncated or non-JSON 2xx bodies) are
//   retried with exponential backoff and full jitter; 429 waits Retry-After for everybody.
// - Redirects are never followed: the Authorization header must not reach another host.
// - No error message ever contains the API key.

import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { ItemResponse, ListMeta, ListResponse, Space } from './types.js';
import { RateLimiter, type Ticket } from './rate-limiter.js';
import { watchSocketWrite } from './socket-writes.js';

// ---- errors --------------------------------------------------------------------------------------

export interface ApiErrorInit {
  status: number | null;
  code: string;
  method: string;
  /** path and query, without the host */
  path: string;
  body?: unknown;
  raw?: string;
  cause?: unknown;
}

/** Any failed API call. `status` is null when no HTTP response was involved. */
export class ApiError extends Error {
  readonly status: number | null;
  readonly code: string;
  readonly method: string;
  readonly path: string;
  /** Parsed error body, when there was one. */
  readonly body: unknown;
  /** Raw response text, when it matters (invalid JSON, HTML instead of JSON). */
  readonly raw: string | undefined;
  /** The run cannot go on (bad key, wrong space): stop instead of recording and moving on. */
  readonly fatal: boolean = false;
  /** Retrying later (another run) may succeed. */
  readonly transient: boolean = false;

  constructor(message: string, init: ApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
    this.raw = init.raw;
  }
}

/** 401 (key missing, wrong or deleted) or 403 (another space): fatal, stop the run. */
export class AuthError extends ApiError {
  override readonly fatal = true;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    this.name = 'AuthError';
  }
}

/** 404: the record does not exist (any more). */
export class NotFoundError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    this.name = 'NotFoundError';
  }
}

/** Retries exhausted (5xx, network, timeouts, bad bodies, or still throttled). */
export class TransientError extends ApiError {
  override readonly transient = true;
  /** Attempts made, including the first. */
  readonly attempts: number;
  constructor(message: string, init: ApiErrorInit & { attempts: number }) {
    super(message, init);
    this.name = 'TransientError';
    this.attempts = init.attempts;
  }
}

// ---- base URL ------------------------------------------------------------------------------------

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * Checks the API's base URL: http(s), path ending in /api/v1 (trailing slash tolerated), https
 * unless the host is loopback, no credentials, query or fragment. Returns it without the trailing
 * slash. Throws an Error with a one-line message.
 */
export function parseBaseUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`base URL ${JSON.stringify(input)} is not a URL (expected e.g. https://api.example.com/api/v1)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`base URL must use https:// (got ${url.protocol}//)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error(`base URL ${url.origin} must use https:// (plain http is allowed only on loopback: 127.0.0.1, localhost, [::1])`);
  }
  if (url.username || url.password) {
    throw new Error('base URL must not contain credentials: pass the API key via CONVODUCK_API_KEY or --api-key-file');
  }
  if (url.search || url.hash) throw new Error(`base URL ${url.origin}${url.pathname} must not have a query or fragment`);
  const path = url.pathname.replace(/\/$/, '');
  if (!path.endsWith('/api/v1')) {
    throw new Error(`base URL path ${JSON.stringify(url.pathname)} must end with /api/v1`);
  }
  url.pathname = path;
  return url;
}

// ---- client --------------------------------------------------------------------------------------

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export type ClientEvent =
  | { type: 'request'; method: string; path: string; attempt: number }
  | { type: 'response'; method: string; path: string; status: number; ms: number; attempt: number }
  | { type: 'network-error'; method: string; path: string; reason: string; ms: number; attempt: number }
  | { type: 'retry'; method: string; path: string; reason: string; attempt: number; delayMs: number }
  | { type: 'throttled'; method: string; path: string; retryAfterMs: number; count: number };

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
}

export interface ClientStats {
  /** HTTP requests actually sent, retries and 429s included. */
  requests: number;
  /** 429 responses. */
  throttled: number;
  /** Retries scheduled for transient failures (429s not included). */
  retries: number;
}

export interface GetResult {
  status: number;
  json: unknown;
  text: string;
}

const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const REDACTED = 'np_…redacted';

type Attempt =
  | { kind: 'ok'; result: GetResult }
  | { kind: 'retry'; reason: string; code: string; status: number | null; raw?: string; cause?: unknown }
  | { kind: 'throttled'; retryAfterMs: number };

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

/** FIFO counting semaphore: a request holds a slot from before its send until its body is read. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or null when it is not UTF-8 (a lossy decode would corrupt stored text). */
function decodeUtf8(buf: Buffer): string | null {
  try {
    return strictUtf8.decode(buf);
  } catch {
    return null;
  }
}

class Slots {
  private free: number;
  private readonly waiters: (() => void)[] = [];
  constructor(n: number) {
    this.free = n;
  }
  async take(signal: AbortSignal): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(go);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(go);
    });
  }
  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_ABORTED',
  'HPE_INVALID_CONSTANT',
]);

export class ApiClient {
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
        this.limiter.pauseFor(r.retryAfterMs);
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

  /** The key's space (GET /spaces; `data` may be the space or a list holding it). */
  async getSpace(): Promise<Space> {
    const { json } = await this.get('/spaces');
    const data = isObject(json) ? json.data : undefined;
    const space = Array.isArray(data) ? data[0] : data;
    if (!isObject(space) || typeof space.slug !== 'string' || space.slug === '') {
      throw new ApiError('GET /spaces: the response names no space (expected data.slug or data[0].slug)', {
        status: 200,
        code: 'bad_response',
        method: 'GET',
        path: `${this.baseUrl.pathname}/spaces`,
        body: json,
      });
    }
    return {
      ...space,
      slug: space.slug,
      llm_options: Array.isArray(space.llm_options) ? (space.llm_options as { id: string }[]) : [],
    } as Space;
  }

  /** One page of a list endpoint, checked for `data` (array) and `meta`. */
  async listPage<T>(path: string, query: Query = {}): Promise<ListResponse<T> & { text: string }> {
    const { json, text } = await this.get(path, query);
    if (!isObject(json) || !Array.isArray(json.data) || !isObject(json.meta)) {
      const url = this.buildUrl(path, query);
      throw new ApiError(`GET ${url.pathname}${url.search}: not a list response (expected {data: [...], meta: {...}})`, {
        status: 200,
        code: 'bad_response',
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        raw: truncate(this.redact(text), 2000),
      });
    }
    const m = json.meta;
    const meta: ListMeta = {
      page: toInt(m.page) ?? 1,
      per_page: toInt(m.per_page) ?? json.data.length,
      total: toInt(m.total) ?? json.data.length,
      next_page: toInt(m.next_page),
    };
    return { data: json.data as T[], meta, text };
  }

  /** Every page of a list (per_page 200 unless given), following meta.next_page. */
  async *listPages<T>(path: string, query: Query = {}): AsyncGenerator<ListResponse<T> & { text: string }> {
    let page = toInt(query.page) ?? 1;
    const seen = new Set<number>();
    for (;;) {
      seen.add(page);
      const res = await this.listPage<T>(path, { per_page: 200, ...query, page });
      yield res;
      const next = res.meta.next_page;
      if (next === null || res.data.length === 0) return;
      if (seen.has(next)) {
        throw new ApiError(`GET ${this.baseUrl.pathname}${path}: meta.next_page ${next} was already fetched (the list loops)`, {
          status: 200,
          code: 'bad_response',
          method: 'GET',
          path: `${this.baseUrl.pathname}${path}`,
        });
      }
      page = next;
    }
  }

  /** Every item of a list, page after page (see listPages). */
  async *listAll<T>(path: string, query: Query = {}): AsyncGenerator<T> {
    for await (const page of this.listPages<T>(path, query)) yield* page.data;
  }

  /** One conversation in full: the parsed body (`{data: …}`) and the raw text the store keeps. */
  async getConversation(space: string, id: string): Promise<{ json: unknown; text: string }> {
    const { json, text } = await this.get(
      `/spaces/${encodeURIComponent(space)}/conversations/${encodeURIComponent(id)}`,
    );
    return { json, text };
  }

  /** GET a single record's `data`. */
  async getItem<T>(path: string, query: Query = {}): Promise<T> {
    const { json } = await this.get(path, query);
    return (json as ItemResponse<T>).data;
  }

  // ---------------------------------------------------------------------------------------------

  private buildUrl(path: string, query: Query): URL {
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

  private redact(text: string): string {
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
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(new AttemptTimeout(this.timeoutMs)), this.timeoutMs);
    const signal = AbortSignal.any([timer.signal, this.closing.signal]);
    this.counters.requests++;
    this.emit({ type: 'request', method: 'GET', path: shown, attempt });
    let observed = false;
    // The limiter recorded the send when it let it go; the server counts it from when it arrives.
    const unwatch = watchSocketWrite(url, () => this.limiter.restamp(ticket, this.limiter.now()));
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
      const status = res.statusCode;
      const limit = headerNumber(res.headers['x-ratelimit-limit']);
      const remaining = headerNumber(res.headers['x-ratelimit-remaining']);
      this.limiter.observe(ticket, { limit, remaining, status });
      observed = true;

      if (status === 429) {
        await discard(res.body);
        this.emit({ type: 'response', method: 'GET', path: shown, status, ms: performance.now() - started, attempt });
        return { kind: 'throttled', retryAfterMs: this.retryAfterMs(res.headers['retry-after']) };
      }
      if (status >= 300 && status < 400) {
        await discard(res.body);
        this.emit({ type: 'response', method: 'GET', path: shown, status, ms: performance.now() - started, attempt });
        const location = headerString(res.headers.location);
        let where = '';
        if (location) {
          try {
            const to = new URL(location, url);
            where = ` to ${to.origin}${to.pathname}`;
          } catch {
            where = '';
          }
        }
        throw new ApiError(`GET ${shown}: the server answered ${status}, a redirect${where}; redirects are not followed (check the base URL)`, {
          status,
          code: 'redirect',
          method: 'GET',
          path: shown,
        });
      }

      const declared = headerNumber(res.headers['content-length']);
      if (declared !== undefined && declared > this.maxBodyBytes) {
        res.body.destroy();
        this.emit({ type: 'response', method: 'GET', path: shown, status, ms: performance.now() - started, attempt });
        throw this.tooLarge(shown, status, declared);
      }
      const buf = await readBody(res.body, this.maxBodyBytes);
      this.emit({ type: 'response', method: 'GET', path: shown, status, ms: performance.now() - started, attempt });
      if (buf === null) throw this.tooLarge(shown, status, undefined);
      if (declared !== undefined && buf.length !== declared) {
        return { kind: 'retry', reason: `truncated body (${buf.length} of ${declared} bytes)`, code: 'truncated', status };
      }
      const text = decodeUtf8(buf);
      if (text === null) {
        throw new ApiError(`GET ${shown}: response body is not valid UTF-8; refused`, {
          status,
          code: 'invalid_utf8',
          method: 'GET',
          path: shown,
        });
      }
      const contentType = headerString(res.headers['content-type']) ?? '';

      if (status >= 500 || status === 408) {
        const err = parseErrorBody(text);
        return {
          kind: 'retry',
          reason: `HTTP ${status}${err ? ` ${err.code}: ${truncate(err.message, 200)}` : ''}`,
          code: err?.code ?? `http_${status}`,
          status,
          raw: truncate(text, 2000),
        };
      }
      if (status >= 400) throw this.clientError(shown, status, text);
      if (status < 200) {
        return { kind: 'retry', reason: `unexpected HTTP ${status}`, code: `http_${status}`, status };
      }

      // 2xx
      if (status === 204 || (text === '' && status !== 200)) return { kind: 'ok', result: { status, json: null, text } };
      if (contentType !== '' && !isJsonType(contentType)) {
        return {
          kind: 'retry',
          reason: `HTTP ${status} with content-type ${JSON.stringify(contentType.split(';')[0])}, not JSON`,
          code: 'not_json',
          status,
          raw: text,
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        return {
          kind: 'retry',
          reason: `HTTP ${status} body is not valid JSON (${(e as Error).message}; ${buf.length} bytes)`,
          code: 'invalid_json',
          status,
          raw: text,
        };
      }
      return { kind: 'ok', result: { status, json, text } };
    } catch (err) {
      if (!observed) this.limiter.release(ticket);
      if (err instanceof ApiError) throw err;
      const ms = performance.now() - started;
      if (timer.signal.aborted && !this.closing.signal.aborted) {
        this.emit({ type: 'network-error', method: 'GET', path: shown, reason: 'timeout', ms, attempt });
        return { kind: 'retry', reason: `timed out: no complete response within ${this.timeoutMs} ms`, code: 'timeout', status: null };
      }
      if (this.closing.signal.aborted) throw this.closedError(shown);
      const code = errorCode(err);
      const reason = `${code ?? 'network error'}: ${this.redact(errorMessage(err))}`;
      this.emit({ type: 'network-error', method: 'GET', path: shown, reason, ms, attempt });
      if ((code !== undefined && (RETRYABLE_CODES.has(code) || code.startsWith('HPE_'))) || /other side closed|socket hang up|terminated/i.test(errorMessage(err))) {
        const kind = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? 'timeout' : 'network';
        return { kind: 'retry', reason, code: kind === 'timeout' ? 'timeout' : code ?? 'network', status: null, cause: err };
      }
      throw new ApiError(`GET ${shown}: ${reason}`, { status: null, code: code ?? 'network', method: 'GET', path: shown, cause: err });
    } finally {
      unwatch();
      clearTimeout(timeout);
    }
  }

  private retryAfterMs(value: string | string[] | undefined): number {
    const v = headerString(value)?.trim();
    let ms = 1000;
    if (v) {
      const secs = Number(v);
      if (Number.isFinite(secs)) ms = secs * 1000;
      else {
        const at = Date.parse(v);
        if (!Number.isNaN(at)) ms = at - Date.now();
      }
    }
    // never negative, never longer than two windows (a hostile or broken value must not hang us)
    return Math.min(Math.max(ms, 0), 2 * this.windowMs);
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

  private clientError(shown: string, status: number, text: string): ApiError {
    const body = parseErrorBody(text);
    const code = body?.code ?? `http_${status}`;
    const said = body?.message ? `: ${truncate(this.redact(body.message), 300)}` : '';
    const head = this.redact(`GET ${shown}: ${status} ${code}${said}`).replace(/[.\s]+$/, '');
    const init: ApiErrorInit = { status, code, method: 'GET', path: shown, body: body ?? undefined };
    if (status === 401) {
      return new AuthError(
        `${head}. The API key was not accepted: check CONVODUCK_API_KEY or the file given with --api-key-file (keys begin with np_)`,
        init,
      );
    }
    if (status === 403) {
      return new AuthError(
        `${head}. The key is not allowed here: a key acts only in its own space, so the key and the space do not match (check the key, and the space you asked for)`,
        init,
      );
    }
    if (status === 404) return new NotFoundError(head, init);
    return new ApiError(head, init);
  }
}

// ---- helpers -------------------------------------------------------------------------------------

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function headerNumber(v: string | string[] | undefined): number | undefined {
  const s = headerString(v)?.trim();
  if (s === undefined || s === '' || !/^\d+(\.\d+)?$/.test(s)) return undefined;
  return Number(s);
}

function isJsonType(contentType: string): boolean {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}

function parseErrorBody(text: string): { code: string; message: string } | null {
  try {
    const j: unknown = JSON.parse(text);
    if (!isObject(j)) return null;
    const src = isObject(j.error) ? j.error : j;
    const code = typeof src.code === 'string' ? src.code : undefined;
    const message = typeof src.message === 'string' ? src.message : undefined;
    if (code === undefined && message === undefined) return null;
    return { code: code ?? 'error', message: message ?? '' };
  } catch {
    return null;
  }
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && isObjectLike(e); depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isObjectLike(v: unknown): v is object {
  return typeof v === 'object' && v !== null;
}

async function discard(body: AsyncIterable<unknown> & { destroy?: () => void }): Promise<void> {
  try {
    let n = 0;
    for await (const chunk of body) {
      n += (chunk as Buffer).length;
      if (n > 1024 * 1024) break;
    }
  } catch {
    // the body of a response we do not use
  } finally {
    body.destroy?.();
  }
}

/** The whole body, or null when it exceeds `max` bytes (the stream is then destroyed). */
async function readBody(body: AsyncIterable<unknown> & { destroy: () => void }, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    total += b.length;
    if (total > max) {
      body.destroy();
      return null;
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, total);
}
