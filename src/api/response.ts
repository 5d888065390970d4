// What one HTTP response (or network failure) means for a call: a result, a retry, a wait for the
// rate limit, or an error to throw. Pure apart from reading and discarding bodies, so that every
// branch is tested without a server.

import { ApiError, AuthError, NotFoundError, type ApiErrorInit } from './errors.js';

export interface GetResult {
  status: number;
  json: unknown;
  text: string;
  /** the body held bytes that are not UTF-8, read as U+FFFD (as a browser reads them) */
  notUtf8?: true;
}

export type Attempt =
  | { kind: 'ok'; result: GetResult }
  | { kind: 'retry'; reason: string; code: string; status: number | null; raw?: string; cause?: unknown }
  | { kind: 'throttled'; retryAfterMs: number | null };

/** The headers a call looks at, read once. */
export interface ResponseHead {
  status: number;
  limit: number | undefined;
  remaining: number | undefined;
  /** as sent, trimmed; null when absent */
  retryAfter: string | null;
  contentType: string;
  contentLength: number | undefined;
  location: string | undefined;
  /** the Date header, as sent */
  date: string | undefined;
}

type RawHeaders = Record<string, string | string[] | undefined>;

export function readHead(status: number, headers: RawHeaders): ResponseHead {
  return {
    status,
    limit: headerNumber(headers['x-ratelimit-limit']),
    remaining: headerNumber(headers['x-ratelimit-remaining']),
    retryAfter: headerString(headers['retry-after'])?.trim() ?? null,
    contentType: headerString(headers['content-type']) ?? '',
    contentLength: headerNumber(headers['content-length']),
    location: headerString(headers.location),
    date: headerString(headers.date),
  };
}

/** Whether a response's body is worth reading: a 429 and a redirect are decided by their head. */
export function bodyMatters(status: number): boolean {
  return status !== 429 && !(status >= 300 && status < 400);
}

export interface ClassifyContext {
  /** `GET /api/v1/…?…`, for messages */
  shown: string;
  url: URL;
  /** Retry-After is honoured up to this long (one rate window) */
  maxRetryAfterMs: number;
  /** wall clock, for Retry-After given as an HTTP date */
  nowMs: number;
  /** removes anything shaped like an API key */
  redact: (text: string) => string;
}

/**
 * A response whose body (when it matters) was read in full and was not over the size limit.
 * Returns what the call does next, or throws the ApiError to give up with.
 */
export function classifyResponse(head: ResponseHead, body: Buffer | null, ctx: ClassifyContext): Attempt {
  const { status } = head;
  const { shown } = ctx;
  if (status === 429) return { kind: 'throttled', retryAfterMs: retryAfterMs(head.retryAfter, ctx) };
  if (status >= 300 && status < 400) {
    let where = '';
    try {
      if (head.location) {
        const to = new URL(head.location, ctx.url);
        where = ` to ${to.origin}${to.pathname}`;
      }
    } catch {
      where = '';
    }
    throw new ApiError(`GET ${shown}: the server answered ${status}, a redirect${where}; redirects are not followed (check the base URL)`, {
      status,
      code: 'redirect',
      method: 'GET',
      path: shown,
    });
  }
  const buf = body ?? Buffer.alloc(0);
  if (head.contentLength !== undefined && buf.length !== head.contentLength) {
    return { kind: 'retry', reason: `truncated body (${buf.length} of ${head.contentLength} bytes)`, code: 'truncated', status };
  }
  const strict = decodeUtf8(buf);
  const text = strict ?? buf.toString('utf8');
  const notUtf8 = strict === null ? ({ notUtf8: true } as const) : {};
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
  if (status >= 400) throw clientError(shown, status, text, ctx.redact);
  if (status < 200) return { kind: 'retry', reason: `unexpected HTTP ${status}`, code: `http_${status}`, status };

  if (status === 204 || (text === '' && status !== 200)) return { kind: 'ok', result: { status, json: null, text, ...notUtf8 } };
  if (head.contentType !== '' && !isJsonType(head.contentType)) {
    return {
      kind: 'retry',
      reason: `HTTP ${status} with content-type ${JSON.stringify(head.contentType.split(';')[0])}, not JSON`,
      code: 'not_json',
      status,
      raw: text,
    };
  }
  try {
    return { kind: 'ok', result: { status, json: JSON.parse(text) as unknown, text, ...notUtf8 } };
  } catch (e) {
    return {
      kind: 'retry',
      reason: `HTTP ${status} body is not valid JSON (${(e as Error).message}; ${buf.length} bytes)`,
      code: 'invalid_json',
      status,
      raw: text,
    };
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

/**
 * What kept a request from connecting at all, in words (`connection refused by 127.0.0.1:8080`);
 * null when the failure came after a connection (the server may have seen the request).
 */
export function connectFailure(err: unknown, host: string): string | null {
  switch (errorCode(err)) {
    case 'ECONNREFUSED':
      return `connection refused by ${host}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${host} not found (DNS)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${host} unreachable`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `no connection to ${host} (timed out)`;
    default:
      return null;
  }
}

/** A failure without a response: a retry when the network may do better next time, else an error. */
export function classifyNetworkError(err: unknown, shown: string, redact: (text: string) => string): Extract<Attempt, { kind: 'retry' }> {
  const code = errorCode(err);
  const reason = `${code ?? 'network error'}: ${redact(errorMessage(err))}`;
  if ((code !== undefined && (RETRYABLE_CODES.has(code) || code.startsWith('HPE_'))) || /other side closed|socket hang up|terminated/i.test(errorMessage(err))) {
    const timeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
    return { kind: 'retry', reason, code: timeout ? 'timeout' : (code ?? 'network'), status: null, cause: err };
  }
  throw new ApiError(`GET ${shown}: ${reason}`, { status: null, code: code ?? 'network', method: 'GET', path: shown, cause: err });
}

/**
 * How long everybody waits after a 429: Retry-After (seconds or an HTTP date), at most one window;
 * a whole window when it is missing or unreadable: by then every reading of the limit has freed up,
 * and a shorter guess only buys more 429s.
 */
export function throttleWaitMs(head: ResponseHead, windowMs: number, nowMs: number): number {
  return retryAfterMs(head.retryAfter, { maxRetryAfterMs: windowMs, nowMs }) ?? windowMs;
}

/** Retry-After in ms (seconds or an HTTP date), at most one window; null when absent or unreadable. */
function retryAfterMs(value: string | null, ctx: Pick<ClassifyContext, 'maxRetryAfterMs' | 'nowMs'>): number | null {
  if (!value) return null;
  const secs = Number(value);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(value) - ctx.nowMs;
  if (Number.isNaN(ms)) return null;
  // Within one window every reading of the limit has freed up again (a rolling window has
  // emptied, a fixed one reset, a bucket refilled): a longer wait is never needed.
  return Math.min(Math.max(ms, 0), ctx.maxRetryAfterMs);
}

function clientError(shown: string, status: number, text: string, redact: (text: string) => string): ApiError {
  const body = parseErrorBody(text);
  const code = body?.code ?? `http_${status}`;
  const said = body?.message ? `: ${truncate(redact(body.message), 300)}` : '';
  const head = redact(`GET ${shown}: ${status} ${code}${said}`).replace(/[.\s]+$/, '');
  const init: ApiErrorInit = { status, code, method: 'GET', path: shown, body: body ?? undefined };
  if (status === 401) {
    return new AuthError(`${head}. The API key was not accepted: check CONVODUCK_API_KEY or the file given with --api-key-file (keys begin with np_)`, init);
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

// ---- bodies ----------------------------------------------------------------------------------------

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or null when it is not UTF-8 (a lossy decode would corrupt stored text). */
function decodeUtf8(buf: Buffer): string | null {
  try {
    return strictUtf8.decode(buf);
  } catch {
    return null;
  }
}

/** Reads and drops a body we do not use (at most 1 MiB of it). */
export async function discard(body: AsyncIterable<unknown> & { destroy?: () => void }): Promise<void> {
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
export async function readBody(body: AsyncIterable<unknown> & { destroy: () => void }, max: number): Promise<Buffer | null> {
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

// ---- small readers ---------------------------------------------------------------------------------

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
}

export function truncate(s: string, n: number): string {
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
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
