// What one response means for a call (src/api/response.ts): pure, so every branch is checked here.
import { describe, expect, it } from 'vitest';
import { AuthError, NotFoundError, ApiError } from '../../src/api/errors.js';
import { classifyNetworkError, classifyResponse, readHead, type ResponseHead } from '../../src/api/response.js';

const ctx = {
  shown: '/api/v1/spaces/acme/conversations?page=2',
  url: new URL('https://api.example.com/api/v1/spaces/acme/conversations?page=2'),
  maxRetryAfterMs: 60_000,
  nowMs: Date.parse('2026-11-23T10:00:00Z'),
  redact: (t: string) => t.replace(/np_\w+/g, 'np_…redacted'),
};

function head(status: number, headers: Record<string, string> = {}): ResponseHead {
  return readHead(status, { 'content-type': 'application/json', ...headers });
}
const body = (text: string) => Buffer.from(text, 'utf8');

describe('classifyResponse', () => {
  it('a 2xx JSON body is a result; 204 and an empty non-200 are results without JSON', () => {
    expect(classifyResponse(head(200), body('{"data":[]}'), ctx)).toEqual({ kind: 'ok', result: { status: 200, json: { data: [] }, text: '{"data":[]}' } });
    expect(classifyResponse(head(204), body(''), ctx)).toMatchObject({ kind: 'ok', result: { json: null } });
  });

  it('a 429 waits Retry-After (seconds or an HTTP date), at most one window; null when absent or unreadable', () => {
    expect(classifyResponse(head(429, { 'retry-after': '7' }), null, ctx)).toEqual({ kind: 'throttled', retryAfterMs: 7000 });
    expect(classifyResponse(head(429, { 'retry-after': '600' }), null, ctx)).toEqual({ kind: 'throttled', retryAfterMs: 60_000 });
    expect(classifyResponse(head(429, { 'retry-after': 'Mon, 23 Nov 2026 10:00:05 GMT' }), null, ctx)).toEqual({ kind: 'throttled', retryAfterMs: 5000 });
    expect(classifyResponse(head(429), null, ctx)).toEqual({ kind: 'throttled', retryAfterMs: null });
    expect(classifyResponse(head(429, { 'retry-after': 'soon' }), null, ctx)).toEqual({ kind: 'throttled', retryAfterMs: null });
  });

  it('retries what a later attempt may get right: 5xx, 408, truncated, not JSON, invalid JSON', () => {
    expect(classifyResponse(head(503), body('{"code":"service_unavailable","message":"later"}'), ctx)).toMatchObject({ kind: 'retry', code: 'service_unavailable', status: 503 });
    expect(classifyResponse(head(408), body(''), ctx)).toMatchObject({ kind: 'retry', code: 'http_408' });
    expect(classifyResponse(head(200, { 'content-length': '100' }), body('{"data":'), ctx)).toMatchObject({ kind: 'retry', code: 'truncated' });
    expect(classifyResponse(head(200, { 'content-type': 'text/html' }), body('<html>down</html>'), ctx)).toMatchObject({ kind: 'retry', code: 'not_json' });
    expect(classifyResponse(head(200), body('{"data":['), ctx)).toMatchObject({ kind: 'retry', code: 'invalid_json' });
  });

  it('throws what no retry mends: 401/403 as AuthError, 404 as NotFoundError, redirects, other 4xx, bodies that are not UTF-8', () => {
    const refused = () => classifyResponse(head(401), body('{"code":"unauthenticated","message":"bad key np_secret123"}'), ctx);
    expect(refused).toThrow(AuthError);
    expect(refused).toThrow(/401 unauthenticated.*np_…redacted/);
    expect(refused).not.toThrow(/np_secret123/);
    expect(() => classifyResponse(head(403), body('{"code":"forbidden"}'), ctx)).toThrow(AuthError);
    expect(() => classifyResponse(head(404), body('{"code":"not_found"}'), ctx)).toThrow(NotFoundError);
    expect(() => classifyResponse(head(302, { location: 'https://evil.example/x' }), null, ctx)).toThrow(/redirect to https:\/\/evil\.example\/x; redirects are not followed/);
    expect(() => classifyResponse(head(422), body('{"code":"validation_failed","message":"per_page"}'), ctx)).toThrow(ApiError);
  });

  it('reads bytes that are not UTF-8 as U+FFFD and says so', () => {
    const bytes = Buffer.concat([Buffer.from('{"s":"a'), Buffer.from([0xff]), Buffer.from('b"}')]);
    expect(classifyResponse(head(200), bytes, ctx)).toEqual({ kind: 'ok', result: { status: 200, json: { s: 'a\uFFFDb' }, text: '{"s":"a\uFFFDb"}', notUtf8: true } });
    expect(classifyResponse(head(200), body('{"s":"ab"}'), ctx)).toEqual({ kind: 'ok', result: { status: 200, json: { s: 'ab' }, text: '{"s":"ab"}' } });
  });
});

describe('classifyNetworkError', () => {
  it('retries resets and timeouts, and gives up on what the network cannot mend', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyNetworkError(reset, ctx.shown, ctx.redact)).toMatchObject({ kind: 'retry', code: 'ECONNRESET' });
    const timeout = Object.assign(new Error('headers'), { code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(classifyNetworkError(timeout, ctx.shown, ctx.redact)).toMatchObject({ kind: 'retry', code: 'timeout' });
    const cert = Object.assign(new Error('unable to verify the first certificate'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(() => classifyNetworkError(cert, ctx.shown, ctx.redact)).toThrow(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });
});
