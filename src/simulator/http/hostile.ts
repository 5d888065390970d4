// Broken or hostile answers for one conversation's detail (sim.breakConversation), and the
// second origin a hostile redirect points to, which records any Authorization header it gets.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JSON_TYPE, type Reply } from './responses.js';

/**
 * Broken or hostile answers a real server (or something in front of it) can give for one
 * conversation's detail, for testing that a client keeps going and keeps what it can.
 */
export const HOSTILE_KINDS = [
  'transcript_object', // valid JSON, `transcript` is an object
  'bad_date', // valid JSON, `started_at` does not parse
  'string_number', // valid JSON, `message_count` is a string
  'deep', // valid JSON nested 100,000 levels deep
  'invalid_utf8', // a byte that is not UTF-8 inside a string
  'huge', // a 256 MiB body
  'trickle', // headers, then one byte every 200 ms, forever
  'html200', // an HTML maintenance page with status 200
  'redirect', // 302 to another origin (which records any Authorization header it gets)
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export class HostileAnswers {
  /** Authorization headers received by the redirect target (must stay empty) */
  readonly leakedAuthorization: string[] = [];
  private readonly broken = new Map<string, HostileKind>();
  private readonly trickles = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly redirectTarget: http.Server,
    private readonly redirectPort: number,
  ) {}

  static async start(): Promise<HostileAnswers> {
    let self: HostileAnswers | null = null;
    const target = http.createServer((req, res) => {
      if (req.headers.authorization) self?.leakedAuthorization.push(req.headers.authorization);
      res.writeHead(200, { 'Content-Type': JSON_TYPE });
      res.end('{"data":{"stolen":true}}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    self = new HostileAnswers(target, (target.address() as AddressInfo).port);
    return self;
  }

  /** From now on the detail of `id` is answered this way (null: heal it). */
  breakConversation(id: string, kind: HostileKind | null): void {
    if (kind === null) this.broken.delete(id.toLowerCase());
    else this.broken.set(id.toLowerCase(), kind);
  }

  kindFor(id: string): HostileKind | undefined {
    return this.broken.get(id.toLowerCase());
  }

  /** Answers a detail request whose healthy answer would have been `body`. */
  answer(kind: HostileKind, req: http.IncomingMessage, res: http.ServerResponse, body: string, headers: Record<string, string>, reply: Reply): void {
    if (res.destroyed) return;
    const mutate = (change: (c: Record<string, unknown>) => void) => {
      const parsed = JSON.parse(body) as { data: Record<string, unknown> };
      change(parsed.data);
      reply.send(200, JSON.stringify(parsed), headers);
    };
    switch (kind) {
      case 'transcript_object':
        return mutate((c) => (c.transcript = { entries: c.transcript }));
      case 'bad_date':
        return mutate((c) => (c.started_at = 'the 3rd of never'));
      case 'string_number':
        return mutate((c) => (c.message_count = String(c.message_count)));
      case 'deep': {
        const depth = 100_000;
        return reply.send(200, `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`, headers);
      }
      case 'invalid_utf8': {
        reply.done(200);
        const text = Buffer.from(body, 'utf8');
        const at = text.indexOf('"id":"') + 6;
        const bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe]), text.subarray(at)]);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': String(bytes.length), ...headers });
        res.end(bytes);
        return;
      }
      case 'huge': {
        reply.done(200);
        const total = 256 * 1024 * 1024;
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': String(total + 20), ...headers });
        res.write('{"data":{"pad":"');
        let sent = 0;
        const pump = (): void => {
          while (!res.destroyed && sent < total) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end('"}}');
        };
        pump();
        return;
      }
      case 'trickle': {
        reply.done(200);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, ...headers });
        res.write('{"data":');
        const timer = setInterval(() => {
          if (res.destroyed) {
            clearInterval(timer);
            this.trickles.delete(timer);
            return;
          }
          res.write(' ');
        }, 200);
        this.trickles.add(timer);
        return;
      }
      case 'html200':
        return reply.send(
          200,
          '<!DOCTYPE html><html><head><title>Down for maintenance</title></head><body><h1>We will be back soon</h1></body></html>',
          headers,
          'text/html; charset=utf-8',
        );
      case 'redirect':
        return reply.send(302, '', { ...headers, Location: `http://127.0.0.1:${this.redirectPort}${req.url ?? '/'}` });
    }
  }

  close(): void {
    for (const timer of this.trickles) clearInterval(timer);
    this.trickles.clear();
    this.redirectTarget.closeAllConnections();
    this.redirectTarget.close();
  }
}
