// What happens to each request, in this order: match the route (for the log), authenticate
// (401), spend from the key's budget (429), run the route (403/404/405/422/200), then answer
// broken on purpose (a hostile detail, or an injected fault) or normally, after the latency of
// its kind. Every response carries X-RateLimit-Limit / X-RateLimit-Remaining.

import type http from 'node:http';
import type { FaultInjector } from '../limits/faults.js';
import type { HostileAnswers } from './hostile.js';
import type { KeyBudget } from '../limits/key-budget.js';
import type { RuntimeOptions } from '../options.js';
import type { RequestLogEntry, RequestRecorder } from './request-log.js';
import { JSON_TYPE, errorBody, errorResult, type Reply, type RouteResult } from './responses.js';
import type { Router } from './routes.js';

export interface PipelineParts {
  options: RuntimeOptions;
  budget: KeyBudget;
  recorder: RequestRecorder;
  router: Router;
  hostile: HostileAnswers;
  faults: FaultInjector;
}

export class RequestPipeline {
  /** answers waiting for their latency */
  private readonly pending = new Set<NodeJS.Timeout>();

  constructor(private readonly parts: PipelineParts) {}

  /** Drops the answers still waiting for their latency. */
  cancelPending(): void {
    for (const timer of this.pending) clearTimeout(timer);
    this.pending.clear();
  }

  readonly handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const { options: o, budget, recorder, router, hostile, faults } = this.parts;
    const t = Date.now();
    req.resume();
    const method = req.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      url = new URL('http://127.0.0.1/');
    }
    const route = router(method, url.pathname);
    const entry: RequestLogEntry = {
      t,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      client: 'key',
      kind: route.kind,
    };
    recorder.add(entry);
    const reply: Reply = {
      send: (status, body, headers, contentType) => this.send(res, entry, status, body, headers, contentType),
      done: (status) => recorder.done(entry, status),
    };

    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
    if (!m || m[1] !== o.apiKey || budget.revoked()) {
      reply.send(401, errorBody('unauthenticated', 'Missing, invalid or deleted API key: pass a valid API key as a Bearer token in the Authorization header (Authorization: Bearer np_...).'), budget.headers(budget.remaining(t)));
      return;
    }
    const acq = budget.acquire(t, 'key');
    if (!acq.ok) {
      const wait = budget.retryAfterSec(acq.retryAfterSec);
      const body =
        wait === null
          ? errorBody('rate_limited', `Too many requests: at most ${o.rateLimit} requests per ${o.windowMs / 1000} s per key.`)
          : errorBody('rate_limited', `Too many requests: at most ${o.rateLimit} requests per ${o.windowMs / 1000} s per key. Retry after ${wait} s.`, { retry_after: wait });
      reply.send(429, body, { ...budget.headers(budget.remaining(t)), ...(wait === null ? {} : { 'Retry-After': String(wait) }) });
      return;
    }
    const headers = budget.headers(acq.remaining);

    let result: RouteResult;
    try {
      result = route.run(url.searchParams);
    } catch (err) {
      result = errorResult(err);
    }

    const hostileKind = route.kind === 'conversation_detail' && result.status === 200 ? hostile.kindFor(url.pathname.split('/').pop()!) : undefined;
    if (hostileKind) {
      this.after(o.latency.detailMs, () => hostile.answer(hostileKind, req, res, String(result.body), headers, reply));
      return;
    }

    const fault = faults.draw(o.faults);
    if (fault) entry.fault = fault;
    const delay = route.kind === 'conversation_list' ? o.latency.listMs : route.kind === 'conversation_detail' ? o.latency.detailMs : o.latency.otherMs;
    this.after(delay, () => {
      if (res.destroyed) return;
      if (fault) faults.answer(fault, req, res, result, headers, reply);
      else reply.send(result.status, result.body, { ...headers, ...result.headers }, result.contentType);
    });
  };

  /** Runs `answer` after `delayMs` (at once when 0). */
  private after(delayMs: number, answer: () => void): void {
    if (!(delayMs > 0)) return answer();
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      answer();
    }, delayMs);
    this.pending.add(timer);
  }

  private send(res: http.ServerResponse, entry: RequestLogEntry, status: number, body: string | Buffer, headers: Record<string, string>, contentType = JSON_TYPE): void {
    this.parts.recorder.done(entry, status);
    if (res.destroyed || res.writableEnded) return;
    const buf = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(buf.length), ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : buf);
  }
}
