import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  ApiError,
  AuthError,
  NotFoundError,
  TransientError,
  parseBaseUrl,
  type ApiClientOptions,
  type ClientEvent,
} from '../src/api/client.js';
import { RateLimiter, type Ticket } from '../src/api/rate-limiter.js';
import type { ConversationSummary } from '../src/api/types.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../src/simulator/index.js';
import { maxInRollingWindow } from './support/request-log.js';

const KEY = 'np_test_secret_key_0123456789';

// ---- tiny hostile servers ----------------------------------------------------------------------

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

interface Tiny {
  base: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

const open: Tiny[] = [];
const clients: ApiClient[] = [];
const sims: Simulator[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(open.splice(0).map((s) => s.close()));
  await Promise.all(sims.splice(0).map((s) => s.close()));
});

/** Starts a server on 127.0.0.1:0; `handle` gets the request number (1-based) too. */
async function tiny(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<Tiny> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
    handle(req, res, seen.length);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const t: Tiny = {
    base: `http://127.0.0.1:${port}/api/v1`,
    port,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  open.push(t);
  return t;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-ratelimit-limit': '1000',
    'x-ratelimit-remaining': '999',
    ...headers,
  });
  res.end(text);
}

function client(base: string, extra: Partial<ApiClientOptions> = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: base,
    apiKey: KEY,
    retryBaseMs: 5,
    retryMaxDelayMs: 20,
    timeoutMs: 2000,
    ...extra,
  });
  clients.push(c);
  return c;
}

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.message).not.toContain(KEY);
    expect(String(err.stack)).not.toContain(KEY);
    if (err.raw !== undefined) expect(err.raw).not.toContain(KEY);
    return err;
  }
  throw new Error('expected the call to fail');
}

// ---- tests -------------------------------------------------------------------------------------

describe('parseBaseUrl', () => {
  it('accepts https anywhere and http on loopback, with or without a trailing slash', () => {
    expect(parseBaseUrl('https://api.example.com/api/v1').href).toBe('https://api.example.com/api/v1');
    expect(parseBaseUrl('https://api.example.com/x/api/v1/').pathname).toBe('/x/api/v1');
    expect(parseBaseUrl('http://127.0.0.1:8080/api/v1').host).toBe('127.0.0.1:8080');
    expect(parseBaseUrl('http://127.4.5.6/api/v1').hostname).toBe('127.4.5.6');
    expect(parseBaseUrl('http://localhost:3000/api/v1/').pathname).toBe('/api/v1');
    expect(parseBaseUrl('http://[::1]:3000/api/v1').hostname).toBe('[::1]');
  });

  it('rejects with one-line messages', () => {
    const bad = [
      'not a url',
      'ftp://api.example.com/api/v1',
      'http://api.example.com/api/v1',
      'http://10.0.0.1/api/v1',
      'https://api.example.com/api/v2',
      'https://api.example.com/',
      'https://user:pw@api.example.com/api/v1',
      'https://api.example.com/api/v1?x=1',
    ];
    for (const b of bad) {
      let msg = '';
      try {
        parseBaseUrl(b);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg, b).not.toBe('');
      expect(msg).not.toContain('\n');
    }
    expect(() => parseBaseUrl('http://api.example.com/api/v1')).toThrow(/https/);
    expect(() => parseBaseUrl('https://api.example.com/api/v2')).toThrow(/\/api\/v1/);
  });
});

describe('ApiClient against hostile tiny servers', () => {
  it('sends the bearer key, parses JSON and counts requests', async () => {
    const s = await tiny((req, res) => json(res, 200, { data: [{ slug: 'acme', llm_options: [] }] }));
    const c = client(s.base);
    const space = await c.getSpace();
    expect(space.slug).toBe('acme');
    expect(s.seen[0]).toMatchObject({ method: 'GET', url: '/api/v1/spaces', authorization: `Bearer ${KEY}` });
    expect(c.stats).toEqual({ requests: 1, throttled: 0, retries: 0 });
  });

  it('accepts /spaces with data as an object', async () => {
    const s = await tiny((req, res) => json(res, 200, { data: { slug: 'solo', llm_options: [{ id: 'm1' }] } }));
    const space = await client(s.base).getSpace();
    expect(space.slug).toBe('solo');
    expect(space.llm_options).toEqual([{ id: 'm1' }]);
  });

  it('does not follow a redirect to another host, and does not leak the key there', async () => {
    const other = await tiny((req, res) => json(res, 200, { data: [] }));
    const s = await tiny((req, res) => {
      res.writeHead(302, { location: `http://localhost:${other.port}/api/v1/spaces`, 'content-length': '0' });
      res.end();
    });
    const c = client(s.base);
    const err = await caught(c.get('/spaces'));
    expect(err.code).toBe('redirect');
    expect(err.status).toBe(302);
    expect(err.message).toContain('GET /api/v1/spaces');
    expect(other.seen).toHaveLength(0);
    expect(s.seen).toHaveLength(1);
  });

  it('times out a trickling body, retries, then gives up with a TransientError', async () => {
    const s = await tiny((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      const iv = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(iv));
    });
    const c = client(s.base, { timeoutMs: 300, maxRetries: 1 });
    const t0 = Date.now();
    const err = await caught(c.get('/spaces/x/conversations/1'));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.code).toBe('timeout');
    expect((err as TransientError).attempts).toBe(2);
    // the body would trickle for 50 s: a time-out that did not fire waits for it
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(c.stats).toMatchObject({ requests: 2, retries: 1 });
  });

  it('times out when no headers come at all', async () => {
    const s = await tiny(() => {
      // never answers
    });
    const c = client(s.base, { timeoutMs: 200, maxRetries: 0 });
    const err = await caught(c.get('/spaces'));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.code).toBe('timeout');
  });

  it('refuses an oversized body, declared or streamed', async () => {
    const big = 'x'.repeat(300_000);
    const s = await tiny((req, res) => {
      if (req.url?.includes('declared')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
        res.write('[');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked, no length
      res.end(JSON.stringify({ data: big }));
    });
    const c = client(s.base, { maxBodyBytes: 100_000 });
    const e1 = await caught(c.get('/declared'));
    expect(e1.code).toBe('body_too_large');
    const e2 = await caught(c.get('/streamed'));
    expect(e2.code).toBe('body_too_large');
    expect(e2).not.toBeInstanceOf(TransientError);
  });

  it('treats an HTML page with status 200 as an error (retried, then given up with the raw text)', async () => {
    const s = await tiny((req, res) => {
      const html = '<html><body>Maintenance</body></html>';
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(html) });
      res.end(html);
    });
    const c = client(s.base, { maxRetries: 2 });
    const err = await caught(c.get('/spaces'));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.code).toBe('not_json');
    expect(err.raw).toContain('Maintenance');
    expect(s.seen).toHaveLength(3);
  });

  it('retries invalid JSON in a 2xx and then throws an error carrying the raw text', async () => {
    const s = await tiny((req, res, n) => {
      if (req.url?.includes('flaky') && n % 2 === 0) return json(res, 200, { data: { ok: true } });
      const text = '{"data": [1, 2,';
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
    const c = client(s.base, { maxRetries: 2 });
    const err = await caught(c.get('/broken'));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.code).toBe('invalid_json');
    expect(err.raw).toBe('{"data": [1, 2,');
    const ok = await c.get('/flaky');
    expect(ok.json).toEqual({ data: { ok: true } });
  });

  it('retries a truncated body (connection closed before content-length) to success', async () => {
    const s = await tiny((req, res, n) => {
      if (n === 1) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"data": {"id": "abc"');
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      json(res, 200, { data: { id: 'abc' } });
    });
    const events: ClientEvent[] = [];
    const c = client(s.base, { onEvent: (e) => events.push(e) });
    const r = await c.get('/spaces/x/conversations/abc');
    expect(r.json).toEqual({ data: { id: 'abc' } });
    expect(c.stats).toEqual({ requests: 2, throttled: 0, retries: 1 });
    expect(events.some((e) => e.type === 'retry')).toBe(true);
  });

  it('retries 5xx and dropped connections to success', async () => {
    const s = await tiny((req, res, n) => {
      if (n === 1) return json(res, 503, { code: 'unavailable', message: 'try later' });
      if (n === 2) {
        req.socket.destroy();
        return;
      }
      if (n === 3) return json(res, 500, { code: 'boom', message: 'internal' });
      json(res, 200, { data: [], meta: { page: 1, per_page: 200, total: 0, next_page: null } });
    });
    const c = client(s.base);
    const page = await c.listPage('/spaces/x/agents');
    expect(page.data).toEqual([]);
    expect(page.meta.next_page).toBeNull();
    expect(c.stats).toEqual({ requests: 4, throttled: 0, retries: 3 });
  });

  it('gives up on persistent 5xx after maxRetries with a TransientError', async () => {
    const s = await tiny((req, res) => json(res, 502, { code: 'bad_gateway', message: 'upstream' }));
    const c = client(s.base, { maxRetries: 3 });
    const err = await caught(c.get('/spaces'));
    expect(err).toBeInstanceOf(TransientError);
    expect(err.status).toBe(502);
    expect(s.seen).toHaveLength(4);
  });

  it('waits Retry-After on 429 for everybody and counts it as throttled, not as a retry', async () => {
    let firstAt = 0;
    const times: number[] = [];
    const s = await tiny((req, res, n) => {
      times.push(Date.now());
      if (n === 1) {
        firstAt = Date.now();
        return json(res, 429, { code: 'rate_limited', message: 'slow down' }, { 'retry-after': '1', 'x-ratelimit-remaining': '0' });
      }
      json(res, 200, { data: { n } });
    });
    const c = client(s.base, { concurrency: 4 });
    const a = c.get('/a');
    await new Promise((r) => setTimeout(r, 100));
    const b = c.get('/b');
    await Promise.all([a, b]);
    expect(c.stats).toEqual({ requests: 3, throttled: 1, retries: 0 });
    // nobody was sent during the pause
    for (const t of times.slice(1)) expect(t - firstAt).toBeGreaterThanOrEqual(950);
  });

  it('401 is an AuthError naming the setting to check, never the key, even if the server echoes it', async () => {
    const s = await tiny((req, res) =>
      json(res, 401, { code: 'unauthenticated', message: `key ${KEY} is unknown; pass it as Bearer ${KEY}` }),
    );
    const c = client(s.base);
    const err = await caught(c.getSpace());
    expect(err).toBeInstanceOf(AuthError);
    expect(err.fatal).toBe(true);
    expect(err.status).toBe(401);
    expect(err.code).toBe('unauthenticated');
    expect(err.message).toContain('CONVODUCK_API_KEY');
    expect(err.message).toContain('--api-key-file');
    expect(err.message).toContain('np_…redacted');
    expect(err.message).toContain('GET /api/v1/spaces');
    expect(s.seen).toHaveLength(1);
  });

  it('403 is an AuthError about the space, 404 a NotFoundError, 422 a plain ApiError; none retried', async () => {
    const s = await tiny((req, res) => {
      if (req.url?.startsWith('/api/v1/spaces/other')) return json(res, 403, { code: 'forbidden', message: 'no' });
      if (req.url?.includes('missing')) return json(res, 404, { code: 'not_found', message: 'gone' });
      json(res, 422, { code: 'invalid', message: 'per_page too big' });
    });
    const c = client(s.base);
    const e403 = await caught(c.get('/spaces/other/agents'));
    expect(e403).toBeInstanceOf(AuthError);
    expect(e403.message).toMatch(/space/);
    const e404 = await caught(c.getConversation('acme', 'missing'));
    expect(e404).toBeInstanceOf(NotFoundError);
    expect(e404.fatal).toBe(false);
    expect(e404.message).toContain('GET /api/v1/spaces/acme/conversations/missing');
    const e422 = await caught(c.get('/spaces/acme/agents', { per_page: 999 }));
    expect(e422).not.toBeInstanceOf(AuthError);
    expect(e422).not.toBeInstanceOf(NotFoundError);
    expect(e422).not.toBeInstanceOf(TransientError);
    expect(e422.status).toBe(422);
    expect(e422.message).toContain('per_page=999');
    expect(c.stats.requests).toBe(3);
  });

  it('listAll follows meta.next_page with per_page=200', async () => {
    const s = await tiny((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const page = Number(u.searchParams.get('page'));
      json(res, 200, {
        data: [{ id: `a${page}` }, { id: `b${page}` }],
        meta: { page, per_page: Number(u.searchParams.get('per_page')), total: 6, next_page: page < 3 ? page + 1 : null },
      });
    });
    const c = client(s.base);
    const ids: string[] = [];
    for await (const a of c.listAll<{ id: string }>('/spaces/acme/agents', { status: 'active' })) ids.push(a.id);
    expect(ids).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
    expect(s.seen.map((x) => x.url)).toEqual([
      '/api/v1/spaces/acme/agents?per_page=200&status=active&page=1',
      '/api/v1/spaces/acme/agents?per_page=200&status=active&page=2',
      '/api/v1/spaces/acme/agents?per_page=200&status=active&page=3',
    ]);
  });

  it('getConversation returns the raw text byte for byte', async () => {
    const raw = '{"data":{"id":"c1","summary":"caf\\u00e9 ☕"}}';
    const s = await tiny((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(raw) });
      res.end(raw);
    });
    const r = await client(s.base).getConversation('acme', 'c1');
    expect(r.text).toBe(raw);
    expect(r.json).toEqual({ data: { id: 'c1', summary: 'café ☕' } });
  });

  it('refuses paths that would leave the base URL', async () => {
    const s = await tiny((req, res) => json(res, 200, {}));
    const c = client(s.base);
    await expect(c.get('/../../etc')).rejects.toThrow(/base URL/);
    await expect(c.get('/spaces/../../v2/x')).rejects.toThrow(/base URL/);
    expect(s.seen).toHaveLength(0);
    // something that looks like another host stays a path on the API's host
    await c.get('//evil.example.com/x');
    expect(s.seen.map((x) => x.url)).toEqual(['/api/v1//evil.example.com/x']);
  });

  it('keeps many requests in flight while the limiter spaces the sends', async () => {
    // 20 requests, each answered after 300 ms: counted by the server as they overlap, not timed
    let inFlight = 0;
    let most = 0;
    const s = await tiny((req, res) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        json(res, 200, { data: {} }, { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '50' });
      }, 300);
    });
    const c = client(s.base, { concurrency: 16, windowMs: 3000 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => c.get(`/r${i}`)));
    // after the probe, up to the concurrency of 16 at once; a busy machine may hold a few back
    expect(most).toBeGreaterThanOrEqual(8);
    expect(most).toBeLessThanOrEqual(16);
    expect(c.stats.requests).toBe(20);
  });
});

// ---- against the simulator ---------------------------------------------------------------------

async function sim(opts: SimulatorOptions): Promise<Simulator> {
  const s = await startSimulator({ seed: 21, conversations: 400, now: new Date('2026-03-02T12:00:00Z'), ...opts });
  sims.push(s);
  return s;
}

/** Conversation ids straight from the simulator's dataset (no request spent). */
function conversationIds(s: Simulator, n: number): string[] {
  return s.dataset.conversations.slice(0, n).map((c) => c.id);
}

describe('ApiClient against the simulator', () => {
  it('moves each send in the limiter to when undici wrote it to the socket', async () => {
    const s = await sim({ rateLimit: 600 });
    const restamps: { sentAt: number; at: number }[] = [];
    class WatchedLimiter extends RateLimiter {
      override restamp(ticket: Ticket, t: number): void {
        restamps.push({ sentAt: ticket.sentAt, at: t });
        super.restamp(ticket, t);
      }
    }
    const c = client(s.baseUrl, { apiKey: s.apiKey, limiter: new WatchedLimiter({ initialLimit: 600 }) });
    const space = await c.getSpace();
    await Promise.all(conversationIds(s, 6).map((id) => c.getConversation(space.slug, id)));
    // one per request, each at or after the limiter let it go (the first waits for a new connection)
    expect(restamps).toHaveLength(7);
    for (const r of restamps) expect(r.at).toBeGreaterThanOrEqual(r.sentAt);
  });

  it('a burst at a small limit stays inside every window: zero 429s', async () => {
    const windowMs = 1500;
    const s = await sim({ rateLimit: 30, windowMs });
    const ids = conversationIds(s, 70);
    const c = client(s.baseUrl, { apiKey: s.apiKey, windowMs, concurrency: 16 });
    const space = await c.getSpace();
    const results = await Promise.all(ids.map((id) => c.getConversation(space.slug, id)));
    expect(results.map((r) => (r.json as { data: { id: string } }).data.id)).toEqual(ids);
    const own = s.requestLog.filter((r) => r.client === 'key');
    expect(own).toHaveLength(71);
    expect(own.filter((r) => r.status === 429)).toHaveLength(0);
    expect(c.stats).toEqual({ requests: 71, throttled: 0, retries: 0 });
    expect(maxInRollingWindow(own.map((r) => r.t), windowMs)).toBeLessThanOrEqual(30);
    // and the budget was used: 71 requests at 29 per window take a little over two windows; six is
    // a bound a loaded machine cannot miss (how full the windows are is the bench's to measure)
    const span = own.at(-1)!.t - own[0]!.t;
    expect(span).toBeLessThan(6 * windowMs);
  }, 300_000);

  it('shares the key with another client spending a fifth of it: throttled at most once', async () => {
    const windowMs = 2000;
    // 80 per 2 s; the other client sends 480/min = 16 per window, evenly
    const s = await sim({ rateLimit: 80, windowMs, otherClientRpm: 480 });
    const ids = conversationIds(s, 220);
    const c = client(s.baseUrl, { apiKey: s.apiKey, windowMs, concurrency: 16 });
    await Promise.all(ids.map((id) => c.getConversation(s.space, id)));
    expect(c.stats.throttled).toBeLessThanOrEqual(1);
    const log = [...s.requestLog];
    expect(log.filter((r) => r.client === 'key' && r.status === 429).length).toBeLessThanOrEqual(1);
    // once it has been seen, the other client is left its share (after our first two windows)
    const mine = log.filter((r) => r.client === 'key');
    const later = log.filter((r) => r.t >= mine[0]!.t + 2 * windowMs);
    expect(later.filter((r) => r.client === 'other' && r.status === 429).length).toBeLessThanOrEqual(2);
    // how much of the rest of the key we used is measured by the bench (budget cases d, f, h)
  }, 300_000);

  it('a wrong key gives an AuthError whose message has no key', async () => {
    const s = await sim({});
    const c = client(s.baseUrl, { apiKey: 'np_wrong_key_abcdef123456' });
    const err = await caught(c.getSpace());
    expect(err).toBeInstanceOf(AuthError);
    expect(err.status).toBe(401);
    expect(err.message).not.toContain('np_wrong_key_abcdef123456');
    expect(err.message).not.toContain(s.apiKey);
    expect(err.message).toContain('CONVODUCK_API_KEY');
  });

  it('retries injected faults (5xx, HTML 502, drops, truncation) to the same bodies as without faults', async () => {
    const s = await sim({ rateLimit: 1_000_000 });
    const ids = conversationIds(s, 60);
    const clean = client(s.baseUrl, { apiKey: s.apiKey });
    const expected = await Promise.all(ids.map((id) => clean.getConversation(s.space, id)));
    s.setOptions({ faults: { error5xx: 0.15, drop: 0.1, truncate: 0.1 } });
    const c = client(s.baseUrl, { apiKey: s.apiKey, maxRetries: 10 });
    const got = await Promise.all(ids.map((id) => c.getConversation(s.space, id)));
    const strip = (t: string): unknown => {
      const j = JSON.parse(t) as { data: Record<string, unknown> };
      delete j.data.recording_url; // signed per request
      return j;
    };
    expect(got.map((g) => strip(g.text))).toEqual(expected.map((e) => strip(e.text)));
    const faults = s.requestLog.filter((r) => r.fault !== undefined).length;
    expect(faults).toBeGreaterThan(5);
    expect(c.stats.retries).toBe(faults);
    expect(c.stats.requests).toBe(60 + faults);
  }, 300_000);

  it('keeps the budget full when every response is slow (sends are spaced, requests overlap)', async () => {
    const windowMs = 3000;
    const s = await sim({ rateLimit: 30, windowMs, latency: { detailMs: 800, listMs: 0, otherMs: 0 } });
    const ids = conversationIds(s, 90);
    const c = client(s.baseUrl, { apiKey: s.apiKey, windowMs, concurrency: 16 });
    await Promise.all(ids.map((id) => c.getConversation(s.space, id)));
    const own = s.requestLog.filter((r) => r.client === 'key');
    expect(own.filter((r) => r.status === 429)).toHaveLength(0);
    // The first answer tells the limit, then 29 go out (one slot in reserve), and every slot is
    // refilled as soon as it leaves the window, although each answer takes 0.8 s: many requests
    // overlap, their sends are spaced. How full each window is, is measured by the bench (budget case
    // c); here every whole window from our first request holds at least 10, which requests waiting
    // for each other's answers (under 4 a window at 0.8 s each) could never reach.
    const times = own.map((r) => r.t);
    const t0 = times[0]!;
    const whole = Math.floor((times.at(-1)! - t0) / windowMs);
    expect(whole).toBeGreaterThanOrEqual(2);
    for (let k = 0; k < whole; k++) {
      expect(times.filter((t) => t >= t0 + k * windowMs && t < t0 + (k + 1) * windowMs).length).toBeGreaterThanOrEqual(10);
    }
    expect(maxInRollingWindow(own.map((r) => r.t), windowMs)).toBeLessThanOrEqual(30);
  }, 300_000);
});
