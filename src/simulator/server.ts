// The simulated Agent Management API: a plain node:http server on 127.0.0.1.
//
// Routes (GET only; everything under /api/v1, see shared/api/agent-management-api.md §4):
//   /spaces                                   {data: [Space], meta}  (a one-element list)
//   /spaces/{space}/agents[?status&search]    list without behavior/workflow; /agents/{id} full
//   /spaces/{space}/tools[?connection_id]     list; /tools/{id}
//   /spaces/{space}/connections               list without `tools`; /connections/{id} with tools
//   /spaces/{space}/conversations[?agent_id&channel&from&to&outcome]   newest first; /{id} detail
// Lists take page (>= 1) and per_page (1..200, default 50); meta = {page, per_page, total,
// next_page}; a page past the end has empty data and next_page null.
//
// Order of checks: auth (401) -> rate limit (429) -> faults -> route (403/404/405/422/200).
// Every response carries X-RateLimit-Limit / X-RateLimit-Remaining. Errors are
// {code, message} (+ errors for 422): unauthenticated, forbidden, not_found,
// method_not_allowed, validation_failed, rate_limited.
// Validation choices (the spec shows none): page/per_page must be decimal integers in range;
// from/to must be ISO 8601 dates or date-times (an offset-less date-time counts as UTC; a
// '+' sent unencoded arrives as a space and is rejected); channel, outcome and status must be
// known values (outcome also accepts the exotic `voicemail`); agent_id/connection_id must be
// UUIDs (an unknown UUID gives an empty list); a malformed record id gives 404.
// Confidential: summary (list and detail), transcript and recording_url are omitted (keys absent).
// recording_url is signed at serving time (X-Amz-* query, expires after 300 s), so it changes
// from second to second like a real signed link.

import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { AgentDetail, ConnectionDetail, ConversationDetail, ListMeta, Tool } from '../api/types.js';
import { AGENT_STATUSES, DEFAULT_PER_PAGE, KNOWN_CHANNELS, KNOWN_OUTCOMES, MAX_PER_PAGE } from '../api/types.js';
import { Dataset, generateDataset, type ConversationRecord } from './generate.js';
import { Rng, UUID_RE, hashSeed } from './random.js';

export interface LatencyOptions {
  /** conversation list */
  listMs: number;
  /** conversation detail */
  detailMs: number;
  /** every other routed request (spaces, agents, tools, connections, errors) */
  otherMs: number;
}

export interface FaultOptions {
  /** probability of a 500/502/503 (JSON or HTML body) */
  error5xx: number;
  /** probability of closing the socket without any response */
  drop: number;
  /** probability of sending headers (full Content-Length) and half the body, then closing */
  truncate: number;
}

/** Options that can be changed while running (setOptions). */
export interface RuntimeOptions {
  apiKey: string;
  /** accepted requests per rolling window, per key; default 60 */
  rateLimit: number;
  /** rolling window length; default 60000 */
  windowMs: number;
  latency: LatencyOptions;
  faults: FaultOptions;
  /** omit summary, transcript, recording_url */
  confidential: boolean;
  /** new (open) conversations with started_at = simulated now, per real minute; default 0 */
  arrivalsPerMinute: number;
  /** a second client spending the same key's budget: evenly spaced requests per real minute; default 0 */
  otherClientRpm: number;
  /** tie groups (equal started_at) come back rotated differently on every list request; default true */
  unstableTies: boolean;
  /** finish open conversations once the simulated clock passes their natural end; default false */
  autoFinish: boolean;
  /** record every request in requestLog; default true (turn off for very long benchmarks) */
  logRequests: boolean;
  /** called once per request (own and other client) when its status is final; also when logRequests is off */
  onRequest: ((entry: RequestLogEntry) => void) | null;
}

export interface SimulatorOptions extends Partial<Omit<RuntimeOptions, 'latency' | 'faults'>> {
  /** default 7 */
  seed?: number;
  /** default 2000 */
  conversations?: number;
  /** the simulated "now" at start; the simulated clock then runs with real time. Default: real now */
  now?: Date;
  /** history length, default 28 */
  days?: number;
  /** listen port, default 0 (ephemeral). The host is always 127.0.0.1 */
  port?: number;
  exoticValues?: boolean;
  latency?: Partial<LatencyOptions>;
  faults?: Partial<FaultOptions>;
  /** serve an already generated dataset (seed/conversations/now/days/exoticValues then ignored) */
  dataset?: Dataset;
}

export type RequestKind =
  | 'spaces'
  | 'agents'
  | 'tools'
  | 'connections'
  | 'conversation_list'
  | 'conversation_detail'
  | 'other';

export interface RequestLogEntry {
  /** ms epoch when received */
  t: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** HTTP status sent; 0 when the connection was dropped without a response */
  status: number;
  client: 'key' | 'other';
  kind: RequestKind;
  /** set when a fault was injected */
  fault?: 'error5xx' | 'drop' | 'truncate';
}

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

export interface Simulator {
  /** http://127.0.0.1:PORT/api/v1 */
  readonly baseUrl: string;
  readonly port: number;
  readonly apiKey: string;
  /** the space slug */
  readonly space: string;
  readonly dataset: Dataset;
  readonly requestLog: RequestLogEntry[];
  readonly options: Readonly<RuntimeOptions>;
  /** the simulated clock (options.now + elapsed real time) */
  clock(): Date;
  setOptions(partial: Partial<Omit<RuntimeOptions, 'latency' | 'faults'>> & { latency?: Partial<LatencyOptions>; faults?: Partial<FaultOptions> }): void;
  /** adds n conversations starting at the simulated now (open by default), newest first in lists */
  addConversations(n: number, opts?: { open?: boolean; startedAt?: Date }): import('../api/types.js').ConversationSummary[];
  /** finishes every open conversation at the simulated now; returns how many */
  finishOpenConversations(): number;
  /** from now on, the detail of conversation `id` is answered in this broken way (null: heal it) */
  breakConversation(id: string, kind: HostileKind | null): void;
  /** Authorization headers received by the redirect target (must stay empty) */
  readonly leakedAuthorization: string[];
  close(): Promise<void>;
}

export function defaultApiKey(seed: number): string {
  return `np_sim_${new Rng(hashSeed(seed >>> 0, 0x6b6579)).hex(16)}`;
}

/** Rolling-window limiter: at most `limit` accepted requests in any window of `windowMs`. */
class RollingLimiter {
  private times: number[] = [];
  private head = 0;

  constructor(
    public limit: number,
    public windowMs: number,
  ) {}

  private evict(t: number): void {
    const edge = t - this.windowMs;
    while (this.head < this.times.length && this.times[this.head]! <= edge) this.head++;
    if (this.head > 4096 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  count(t: number): number {
    this.evict(t);
    return this.times.length - this.head;
  }

  remaining(t: number): number {
    return Math.max(0, this.limit - this.count(t));
  }

  /** ok: accepted and counted. Otherwise retryAfterSec = whole seconds until one would be accepted. */
  acquire(t: number): { ok: true; remaining: number } | { ok: false; retryAfterSec: number } {
    const n = this.count(t);
    if (n < this.limit) {
      this.times.push(t);
      return { ok: true, remaining: Math.max(0, this.limit - n - 1) };
    }
    // The (n - limit + 1)-th oldest must leave the window: then n' = limit - 1.
    const oldest = this.times[this.head + (n - this.limit)] ?? t;
    const waitMs = oldest + this.windowMs - t;
    return { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}

interface RouteResult {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

class HttpError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
    readonly extra: Record<string, unknown> = {},
  ) {}
}

const JSON_TYPE = 'application/json; charset=utf-8';
const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}:?\d{2})?)?$/;
const KNOWN_OUTCOME_FILTERS: readonly string[] = [...KNOWN_OUTCOMES, 'voicemail'];

function errorBody(code: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ code, message, ...extra });
}

function parseIsoDate(value: string): number | null {
  if (!ISO_RE.test(value)) return null;
  let v = value;
  // A date-time without an offset is read as UTC (Date.parse would use local time).
  if (/[T ]\d{2}:\d{2}/.test(v) && !/(?:Z|z|[+-]\d{2}:?\d{2})$/.test(v)) v += 'Z';
  v = v.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
}

/** Desc-sorted records: first index whose startMs satisfies pred (pred monotone false→true). */
function lowerBound(list: readonly ConversationRecord[], lo: number, hi: number, pred: (r: ConversationRecord) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(list[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const seed = (opts.seed ?? 7) >>> 0;
  const startReal = Date.now();
  const dataset =
    opts.dataset ??
    generateDataset({
      seed,
      conversations: opts.conversations ?? 2000,
      now: opts.now ?? new Date(startReal),
      days: opts.days,
      confidential: opts.confidential,
      exoticValues: opts.exoticValues,
    });
  const clockOffset = dataset.now.getTime() - startReal;
  const clock = (): Date => new Date(Date.now() + clockOffset);
  const slug = dataset.space.slug;

  const o: RuntimeOptions = {
    apiKey: opts.apiKey ?? defaultApiKey(seed),
    rateLimit: opts.rateLimit ?? 60,
    windowMs: opts.windowMs ?? 60_000,
    latency: { listMs: 0, detailMs: 0, otherMs: 0, ...opts.latency },
    faults: { error5xx: 0, drop: 0, truncate: 0, ...opts.faults },
    confidential: opts.confidential ?? dataset.confidential,
    arrivalsPerMinute: opts.arrivalsPerMinute ?? 0,
    otherClientRpm: opts.otherClientRpm ?? 0,
    unstableTies: opts.unstableTies ?? true,
    autoFinish: opts.autoFinish ?? false,
    logRequests: opts.logRequests ?? true,
    onRequest: opts.onRequest ?? null,
  };
  const limiter = new RollingLimiter(o.rateLimit, o.windowMs);
  const faultRng = new Rng(hashSeed(seed, 0xfa17));
  const requestLog: RequestLogEntry[] = [];
  const sockets = new Set<Socket>();
  const pending = new Set<NodeJS.Timeout>();
  let listCounter = 0;
  let closed = false;

  // ------------------------------------------------------------ filtering caches
  const filterCache = new Map<string, { version: number; list: ConversationRecord[] }>();
  function filtered(agentId: string | undefined, channel: string | undefined, outcome: string | undefined): readonly ConversationRecord[] {
    if (agentId === undefined && channel === undefined && outcome === undefined) return dataset.records;
    const key = `${agentId ?? ''}|${channel ?? ''}|${outcome ?? ''}`;
    const hit = filterCache.get(key);
    if (hit && hit.version === dataset.version) return hit.list;
    const list = dataset.records.filter(
      (r) =>
        (agentId === undefined || r.summary.agent_id === agentId) &&
        (channel === undefined || r.summary.channel === channel) &&
        (outcome === undefined || r.summary.outcome === outcome),
    );
    if (filterCache.size > 64) filterCache.clear();
    filterCache.set(key, { version: dataset.version, list });
    return list;
  }

  // ------------------------------------------------------------ helpers
  function paging(q: URLSearchParams, errors: Record<string, string[]>): { page: number; perPage: number } {
    let page = 1;
    let perPage = DEFAULT_PER_PAGE;
    const p = q.get('page');
    if (p !== null) {
      if (!/^\d+$/.test(p)) (errors.page ??= []).push('The page field must be an integer.');
      else if (Number(p) < 1) (errors.page ??= []).push('The page field must be at least 1.');
      else page = Number(p);
    }
    const pp = q.get('per_page');
    if (pp !== null) {
      if (!/^\d+$/.test(pp)) (errors.per_page ??= []).push('The per page field must be an integer.');
      else if (Number(pp) < 1) (errors.per_page ??= []).push('The per page field must be at least 1.');
      else if (Number(pp) > MAX_PER_PAGE) (errors.per_page ??= []).push(`The per page field must not be greater than ${MAX_PER_PAGE}.`);
      else perPage = Number(pp);
    }
    return { page, perPage };
  }

  function checkEnum(q: URLSearchParams, name: string, allowed: readonly string[], errors: Record<string, string[]>): string | undefined {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!allowed.includes(v)) (errors[name] ??= []).push(`The selected ${name} is invalid. Allowed: ${allowed.join(', ')}.`);
    return v;
  }

  function checkUuid(q: URLSearchParams, name: string, errors: Record<string, string[]>): string | undefined {
    const v = q.get(name);
    if (v === null) return undefined;
    if (!UUID_RE.test(v)) (errors[name] ??= []).push(`The ${name.replace('_', ' ')} field must be a valid UUID.`);
    return v.toLowerCase();
  }

  function throwIfErrors(errors: Record<string, string[]>): void {
    const fields = Object.keys(errors);
    if (fields.length === 0) return;
    const first = errors[fields[0]!]![0]!;
    const more = fields.length > 1 ? ` (and ${fields.length - 1} more error${fields.length > 2 ? 's' : ''})` : '';
    throw new HttpError(422, 'validation_failed', first + more, { errors });
  }

  function meta(page: number, perPage: number, total: number): ListMeta {
    return { page, per_page: perPage, total, next_page: page * perPage < total ? page + 1 : null };
  }

  function listBody<T>(items: readonly T[], q: URLSearchParams, errors: Record<string, string[]>, view: (item: T) => unknown): RouteResult {
    const { page, perPage } = paging(q, errors);
    throwIfErrors(errors);
    const start = (page - 1) * perPage;
    const data = start < items.length ? items.slice(start, start + perPage).map(view) : [];
    return { status: 200, body: JSON.stringify({ data, meta: meta(page, perPage, items.length) }) };
  }

  function notFound(what: string, id: string): never {
    throw new HttpError(404, 'not_found', `No ${what} with id "${id}" in space "${slug}".`);
  }

  const agentListView = (a: AgentDetail): unknown => {
    const { behavior: _b, workflow: _w, ...rest } = a;
    return rest;
  };
  const connectionListView = (c: ConnectionDetail): unknown => {
    const { tools: _t, ...rest } = c;
    return rest;
  };

  function summaryJson(rec: ConversationRecord): string {
    if (o.confidential) {
      const { summary: _s, ...rest } = rec.summary;
      return JSON.stringify(rest);
    }
    return JSON.stringify(rec.summary);
  }

  function conversationList(q: URLSearchParams): RouteResult {
    const errors: Record<string, string[]> = {};
    const agentId = checkUuid(q, 'agent_id', errors);
    const channel = checkEnum(q, 'channel', KNOWN_CHANNELS, errors);
    const outcome = checkEnum(q, 'outcome', KNOWN_OUTCOME_FILTERS, errors);
    let fromMs: number | null = null;
    let toMs: number | null = null;
    for (const name of ['from', 'to'] as const) {
      const v = q.get(name);
      if (v === null) continue;
      const ms = parseIsoDate(v);
      if (ms === null) (errors[name] ??= []).push(`The ${name} field must be an ISO 8601 date-time with a UTC offset, like 2024-05-01T00:00:00Z.`);
      else if (name === 'from') fromMs = ms;
      else toMs = ms;
    }
    const { page, perPage } = paging(q, errors);
    throwIfErrors(errors);

    const base = filtered(agentId, channel, outcome);
    const lo = toMs === null ? 0 : lowerBound(base, 0, base.length, (r) => r.startMs <= toMs!);
    const hi = fromMs === null ? base.length : lowerBound(base, lo, base.length, (r) => r.startMs < fromMs!);
    const total = Math.max(0, hi - lo);
    const s = lo + (page - 1) * perPage;
    const e = Math.min(hi, s + perPage);
    const counter = listCounter++;
    let items: readonly ConversationRecord[] = [];
    if (s < e) {
      if (!o.unstableTies) {
        items = base.slice(s, e);
      } else {
        // Extend to whole tie groups at both ends, rotate every tie group, cut the page back out.
        let gs = s;
        while (gs > lo && base[gs - 1]!.startMs === base[s]!.startMs) gs--;
        let ge = e;
        while (ge < hi && base[ge]!.startMs === base[e - 1]!.startMs) ge++;
        const win = base.slice(gs, ge);
        for (let i = 0; i < win.length; ) {
          let j = i + 1;
          while (j < win.length && win[j]!.startMs === win[i]!.startMs) j++;
          const size = j - i;
          if (size > 1) {
            const r = counter % size;
            if (r !== 0) {
              const group = win.slice(i, j);
              for (let k = 0; k < size; k++) win[i + k] = group[(k + r) % size]!;
            }
          }
          i = j;
        }
        items = win.slice(s - gs, s - gs + (e - s));
      }
    }
    let body = '{"data":[';
    for (let i = 0; i < items.length; i++) {
      if (i > 0) body += ',';
      body += summaryJson(items[i]!);
    }
    body += '],"meta":' + JSON.stringify(meta(page, perPage, total)) + '}';
    return { status: 200, body };
  }

  function conversationDetail(id: string): RouteResult {
    const detail = UUID_RE.test(id) ? dataset.detail(id.toLowerCase()) : undefined;
    if (!detail) notFound('conversation', id);
    const out: ConversationDetail = detail;
    if (out.recording_url) {
      const t = Date.now();
      const sig = createHmac('sha256', o.apiKey).update(`${out.id}:${Math.floor(t / 1000)}`).digest('hex');
      out.recording_url = `${out.recording_url}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${amzDate(t)}&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=${sig}`;
    }
    if (o.confidential) {
      delete out.summary;
      delete out.transcript;
      delete out.recording_url;
    }
    return { status: 200, body: JSON.stringify({ data: out }) };
  }

  // ------------------------------------------------------------ routing
  interface Route {
    kind: RequestKind;
    run: (q: URLSearchParams) => RouteResult;
  }

  function matchRoute(method: string, pathname: string): Route {
    let path = pathname;
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    let segs: string[];
    try {
      segs = path.split('/').slice(1).map((s) => decodeURIComponent(s));
    } catch {
      segs = [];
    }
    const noRoute = (): Route => ({
      kind: 'other',
      run: () => {
        throw new HttpError(404, 'not_found', `No route for ${method} ${pathname}.`);
      },
    });
    if (segs[0] !== 'api' || segs[1] !== 'v1' || segs[2] !== 'spaces') return noRoute();
    const rest = segs.slice(3);
    const get = (kind: RequestKind, run: (q: URLSearchParams) => RouteResult): Route => ({
      kind,
      run: (q) => {
        if (method !== 'GET' && method !== 'HEAD') {
          throw new HttpError(405, 'method_not_allowed', `The simulator is read-only: ${method} ${pathname} is not supported, only GET.`);
        }
        return run(q);
      },
    });
    if (rest.length === 0) {
      return get('spaces', (q) => listBody([dataset.space], q, {}, (s) => s));
    }
    const [space, collection, id, extra] = rest;
    if (space === undefined || collection === undefined || extra !== undefined) return noRoute();
    const checkSpace = (): void => {
      if (space !== slug) {
        throw new HttpError(403, 'forbidden', `This API key does not give access to space "${space}".`);
      }
    };
    const guarded = (kind: RequestKind, run: (q: URLSearchParams) => RouteResult): Route =>
      get(kind, (q) => {
        checkSpace();
        return run(q);
      });
    switch (collection) {
      case 'agents':
        if (id === undefined) {
          return guarded('agents', (q) => {
            const errors: Record<string, string[]> = {};
            const status = checkEnum(q, 'status', AGENT_STATUSES, errors);
            const search = q.get('search')?.toLowerCase();
            const items = dataset.agents.filter((a) => (status === undefined || a.status === status) && (search === undefined || a.name.toLowerCase().includes(search)));
            return listBody(items, q, errors, agentListView);
          });
        }
        return guarded('agents', () => {
          const a = dataset.agents.find((x) => x.id === id.toLowerCase());
          if (!a) notFound('agent', id);
          return { status: 200, body: JSON.stringify({ data: a }) };
        });
      case 'tools':
        if (id === undefined) {
          return guarded('tools', (q) => {
            const errors: Record<string, string[]> = {};
            const connectionId = checkUuid(q, 'connection_id', errors);
            const items = dataset.tools.filter((t: Tool) => connectionId === undefined || t.connection_id === connectionId);
            return listBody(items, q, errors, (t) => t);
          });
        }
        return guarded('tools', () => {
          const t = dataset.tools.find((x) => x.id === id.toLowerCase());
          if (!t) notFound('tool', id);
          return { status: 200, body: JSON.stringify({ data: t }) };
        });
      case 'connections':
        if (id === undefined) return guarded('connections', (q) => listBody(dataset.connections, q, {}, connectionListView));
        return guarded('connections', () => {
          const c = dataset.connections.find((x) => x.id === id.toLowerCase());
          if (!c) notFound('connection', id);
          return { status: 200, body: JSON.stringify({ data: c }) };
        });
      case 'conversations':
        if (id === undefined) return guarded('conversation_list', conversationList);
        return guarded('conversation_detail', () => conversationDetail(id));
      default:
        return noRoute();
    }
  }

  // ------------------------------------------------------------ request handling
  function rateHeaders(remaining: number): Record<string, string> {
    return { 'X-RateLimit-Limit': String(o.rateLimit), 'X-RateLimit-Remaining': String(remaining) };
  }

  function done(entry: RequestLogEntry, status: number): void {
    entry.status = status;
    if (o.onRequest) {
      try {
        o.onRequest(entry);
      } catch {
        // an observer must not break the server
      }
    }
  }

  function send(res: http.ServerResponse, entry: RequestLogEntry, status: number, body: string, headers: Record<string, string>, contentType = JSON_TYPE): void {
    done(entry, status);
    if (res.destroyed || res.writableEnded) return;
    const buf = Buffer.from(body, 'utf8');
    res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': String(buf.length), ...headers });
    res.end(res.req.method === 'HEAD' ? undefined : buf);
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const t = Date.now();
    req.resume();
    const method = req.method ?? 'GET';
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      url = new URL('http://127.0.0.1/');
    }
    const route = matchRoute(method, url.pathname);
    const entry: RequestLogEntry = {
      t,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      client: 'key',
      kind: route.kind,
    };
    if (o.logRequests) requestLog.push(entry);

    const auth = req.headers.authorization;
    const m = auth ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
    if (!m || m[1] !== o.apiKey) {
      send(res, entry, 401, errorBody('unauthenticated', 'Missing or invalid API key: pass the API key as a Bearer token in the Authorization header (Authorization: Bearer np_...).'), rateHeaders(limiter.remaining(t)));
      return;
    }
    const acq = limiter.acquire(t);
    if (!acq.ok) {
      send(
        res,
        entry,
        429,
        errorBody('rate_limited', `Too many requests: at most ${o.rateLimit} requests per ${o.windowMs / 1000} s per key. Retry after ${acq.retryAfterSec} s.`, { retry_after: acq.retryAfterSec }),
        { ...rateHeaders(0), 'Retry-After': String(acq.retryAfterSec) },
      );
      return;
    }
    const headers = rateHeaders(acq.remaining);

    let result: RouteResult;
    try {
      result = route.run(url.searchParams);
    } catch (err) {
      if (err instanceof HttpError) {
        result = { status: err.status, body: errorBody(err.code, err.message, err.extra) };
        if (err.status === 405) result.headers = { Allow: 'GET' };
      } else {
        const message = err instanceof Error ? err.message : String(err);
        result = { status: 500, body: errorBody('server_error', `Simulator bug: ${message}`) };
      }
    }

    const hostileKind = route.kind === 'conversation_detail' && result.status === 200 ? hostile.get(url.pathname.split('/').pop()!.toLowerCase()) : undefined;
    if (hostileKind) {
      const answer = () => answerHostile(hostileKind, req, res, entry, result.body, headers);
      const delayMs = o.latency.detailMs;
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          pending.delete(timer);
          answer();
        }, delayMs);
        pending.add(timer);
      } else answer();
      return;
    }

    // Faults (one draw per accepted request).
    const f = o.faults;
    const u = f.error5xx + f.drop + f.truncate > 0 ? faultRng.next() : 1;
    let fault: RequestLogEntry['fault'];
    if (u < f.drop) fault = 'drop';
    else if (u < f.drop + f.truncate) fault = 'truncate';
    else if (u < f.drop + f.truncate + f.error5xx) fault = 'error5xx';
    if (fault) entry.fault = fault;

    const delay = route.kind === 'conversation_list' ? o.latency.listMs : route.kind === 'conversation_detail' ? o.latency.detailMs : o.latency.otherMs;
    const respond = (): void => {
      if (res.destroyed) return;
      if (fault === 'drop') {
        done(entry, 0);
        req.socket.destroy();
        return;
      }
      if (fault === 'truncate') {
        done(entry, result.status);
        const buf = Buffer.from(result.body, 'utf8');
        res.writeHead(result.status, { 'Content-Type': result.contentType ?? JSON_TYPE, 'Content-Length': String(buf.length), ...headers, ...result.headers });
        res.write(buf.subarray(0, Math.floor(buf.length / 2)), () => req.socket.destroy());
        return;
      }
      if (fault === 'error5xx') {
        const status = faultRng.pick([500, 502, 503]);
        if (status === 502) {
          send(res, entry, 502, '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n', headers, 'text/html');
        } else if (status === 503) {
          send(res, entry, 503, errorBody('service_unavailable', 'The service is temporarily unavailable. Try again shortly.'), headers);
        } else {
          send(res, entry, 500, errorBody('server_error', 'Internal server error.'), headers);
        }
        return;
      }
      send(res, entry, result.status, result.body, { ...headers, ...result.headers }, result.contentType);
    };
    if (delay > 0) {
      const timer = setTimeout(() => {
        pending.delete(timer);
        respond();
      }, delay);
      pending.add(timer);
    } else {
      respond();
    }
  }

  // ------------------------------------------------------------ hostile answers
  const hostile = new Map<string, HostileKind>();
  const leakedAuthorization: string[] = [];
  const redirectTarget = http.createServer((req, res) => {
    if (req.headers.authorization) leakedAuthorization.push(req.headers.authorization);
    res.writeHead(200, { 'Content-Type': JSON_TYPE });
    res.end('{"data":{"stolen":true}}');
  });
  await new Promise<void>((resolve) => redirectTarget.listen(0, '127.0.0.1', resolve));
  const redirectPort = (redirectTarget.address() as import('node:net').AddressInfo).port;

  function answerHostile(
    kind: HostileKind,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    entry: RequestLogEntry,
    body: string,
    headers: Record<string, string>,
  ): void {
    if (res.destroyed) return;
    const mutate = (change: (c: Record<string, unknown>) => void) => {
      const parsed = JSON.parse(body) as { data: Record<string, unknown> };
      change(parsed.data);
      send(res, entry, 200, JSON.stringify(parsed), headers);
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
        return send(res, entry, 200, `{"data":${'['.repeat(depth)}${']'.repeat(depth)}}`, headers);
      }
      case 'invalid_utf8': {
        done(entry, 200);
        const text = Buffer.from(body, 'utf8');
        const at = text.indexOf('"id":"') + 6;
        const bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0xff, 0xfe]), text.subarray(at)]);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': String(bytes.length), ...headers });
        res.end(bytes);
        return;
      }
      case 'huge': {
        done(entry, 200);
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
        done(entry, 200);
        res.writeHead(200, { 'Content-Type': JSON_TYPE, ...headers });
        res.write('{"data":');
        const timer = setInterval(() => {
          if (res.destroyed) {
            clearInterval(timer);
            trickles.delete(timer);
            return;
          }
          res.write(' ');
        }, 200);
        trickles.add(timer);
        return;
      }
      case 'html200':
        return send(
          res,
          entry,
          200,
          '<!DOCTYPE html><html><head><title>Down for maintenance</title></head><body><h1>We will be back soon</h1></body></html>',
          headers,
          'text/html; charset=utf-8',
        );
      case 'redirect':
        return send(res, entry, 302, '', { ...headers, Location: `http://127.0.0.1:${redirectPort}${req.url ?? '/'}` });
    }
  }
  const trickles = new Set<NodeJS.Timeout>();

  // ------------------------------------------------------------ background clients
  interface Ticker {
    timer: NodeJS.Timeout | null;
    t0: number;
    done: number;
  }
  const arrivals: Ticker = { timer: null, t0: 0, done: 0 };
  const other: Ticker = { timer: null, t0: 0, done: 0 };
  let finisher: NodeJS.Timeout | null = null;

  function restartTicker(tk: Ticker, perMinute: number, fire: (n: number) => void): void {
    if (tk.timer) clearInterval(tk.timer);
    tk.timer = null;
    if (closed || !(perMinute > 0)) return;
    tk.t0 = Date.now();
    tk.done = 0;
    const interval = Math.max(5, Math.min(1000, Math.floor(60_000 / perMinute)));
    tk.timer = setInterval(() => {
      const due = Math.floor(((Date.now() - tk.t0) * perMinute) / 60_000) - tk.done;
      if (due > 0) {
        tk.done += due;
        fire(due);
      }
    }, interval);
  }

  function otherRequests(n: number): void {
    for (let i = 0; i < n; i++) {
      const t = Date.now();
      const acq = limiter.acquire(t);
      const entry: RequestLogEntry = {
        t,
        method: 'GET',
        path: `/api/v1/spaces/${slug}/conversations`,
        query: {},
        status: 0,
        client: 'other',
        kind: 'conversation_list',
      };
      if (o.logRequests) requestLog.push(entry);
      done(entry, acq.ok ? 200 : 429);
    }
  }

  function addConversations(n: number, opts2: { open?: boolean; startedAt?: Date } = {}): import('../api/types.js').ConversationSummary[] {
    const at = opts2.startedAt ?? clock();
    const out = [];
    for (let i = 0; i < n; i++) out.push(dataset.addConversation(at, { open: opts2.open ?? true }));
    return out;
  }

  function restartBackground(): void {
    restartTicker(arrivals, o.arrivalsPerMinute, (n) => addConversations(n));
    restartTicker(other, o.otherClientRpm, otherRequests);
    if (finisher) clearInterval(finisher);
    finisher = null;
    if (!closed && o.autoFinish) finisher = setInterval(() => dataset.finishDue(clock()), 1000);
  }

  // ------------------------------------------------------------ server
  const server = http.createServer({ keepAlive: true }, handle);
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  restartBackground();

  let closing: Promise<void> | null = null;
  const sim: Simulator = {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    port,
    get apiKey() {
      return o.apiKey;
    },
    space: slug,
    dataset,
    requestLog,
    options: o,
    clock,
    setOptions(partial) {
      const { latency, faults, ...rest } = partial;
      const before = { a: o.arrivalsPerMinute, r: o.otherClientRpm, f: o.autoFinish };
      Object.assign(o, rest);
      if (latency) o.latency = { ...o.latency, ...latency };
      if (faults) o.faults = { ...o.faults, ...faults };
      limiter.limit = o.rateLimit;
      limiter.windowMs = o.windowMs;
      if (before.a !== o.arrivalsPerMinute || before.r !== o.otherClientRpm || before.f !== o.autoFinish) restartBackground();
    },
    addConversations,
    finishOpenConversations: () => dataset.finishOpenConversations(clock()),
    breakConversation(id, kind) {
      if (kind === null) hostile.delete(id.toLowerCase());
      else hostile.set(id.toLowerCase(), kind);
    },
    leakedAuthorization,
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        for (const tk of [arrivals, other]) {
          if (tk.timer) clearInterval(tk.timer);
          tk.timer = null;
        }
        if (finisher) clearInterval(finisher);
        finisher = null;
        for (const timer of pending) clearTimeout(timer);
        pending.clear();
        for (const timer of trickles) clearInterval(timer);
        trickles.clear();
        redirectTarget.closeAllConnections();
        redirectTarget.close();
        // 'close' can fire before libuv has run the handles' close callbacks (those run at the
        // end of the loop turn, after setImmediate): wait for the next turn.
        server.close(() => setImmediate(() => setImmediate(resolve)));
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
  return sim;
}
