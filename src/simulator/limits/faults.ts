// Injected faults (options.faults): per accepted request, one seeded draw decides whether it is
// answered with a 500/502/503 (JSON, or an HTML page from a proxy), dropped without any
// response, or truncated (headers with the full Content-Length and half the body, then closed).

import type http from 'node:http';
import type { FaultOptions } from '../options.js';
import { Rng, hashSeed } from '../random.js';
import type { RequestLogEntry } from '../http/request-log.js';
import { JSON_TYPE, errorBody, type Reply, type RouteResult } from '../http/responses.js';

export type Fault = NonNullable<RequestLogEntry['fault']>;

const BAD_GATEWAY_HTML = '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n';

export class FaultInjector {
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(hashSeed(seed, 0xfa17));
  }

  /** The fault for one accepted request, if any (draws only when some fault is possible). */
  draw(f: FaultOptions): Fault | undefined {
    const u = f.error5xx + f.drop + f.truncate > 0 ? this.rng.next() : 1;
    if (u < f.drop) return 'drop';
    if (u < f.drop + f.truncate) return 'truncate';
    if (u < f.drop + f.truncate + f.error5xx) return 'error5xx';
    return undefined;
  }

  /** Answers with `fault` instead of `result` (whose status and body a truncation cuts). */
  answer(fault: Fault, req: http.IncomingMessage, res: http.ServerResponse, result: RouteResult, headers: Record<string, string>, reply: Reply): void {
    if (fault === 'drop') {
      reply.done(0);
      req.socket.destroy();
      return;
    }
    if (fault === 'truncate') {
      reply.done(result.status);
      const buf = typeof result.body === 'string' ? Buffer.from(result.body, 'utf8') : result.body;
      res.writeHead(result.status, { 'Content-Type': result.contentType ?? JSON_TYPE, 'Content-Length': String(buf.length), ...headers, ...result.headers });
      res.write(buf.subarray(0, Math.floor(buf.length / 2)), () => req.socket.destroy());
      return;
    }
    const status = this.rng.pick([500, 502, 503]);
    if (status === 502) {
      reply.send(502, BAD_GATEWAY_HTML, headers, 'text/html');
    } else if (status === 503) {
      reply.send(503, errorBody('service_unavailable', 'The service is temporarily unavailable. Try again shortly.'), headers);
    } else {
      reply.send(500, errorBody('server_error', 'Internal server error.'), headers);
    }
  }
}
