// The simulator's options: what startSimulator takes (SimulatorOptions), what can change while
// it runs (RuntimeOptions, through setOptions), and their defaults.

import type { Dataset } from './dataset/dataset.js';
import type { IncidentOptions } from './dataset/incidents.js';
import { defaultBurst, type RateAlgorithm } from './limits/rate-limits.js';
import { Rng, hashSeed } from './random.js';
import type { RealDataOptions } from './real-data/real-data.js';
import type { RecordingOptions } from './http/recordings.js';
import type { RequestLogEntry } from './http/request-log.js';
import type { TimeFormat } from './http/time-format.js';

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
  /** accepted requests per window, per key (bucket: tokens refilled per window); default 60 */
  rateLimit: number;
  /** window length; default 60000 */
  windowMs: number;
  /** how the limit is counted (limits/rate-limits.ts): rolling window, fixed window, token bucket; default 'rolling' */
  rateAlgorithm: RateAlgorithm;
  /** token bucket capacity; default max(1, floor(rateLimit / 6)), following rateLimit until set */
  burst: number;
  /** Retry-After of a 429: the algorithm's exact wait, left out, or 3 × windowMs; default 'exact' */
  retryAfter: RetryAfterMode;
  /** after this many accepted requests of the key (counted from when it was set), every request gets 401; default null */
  revokeKeyAfter: number | null;
  /** form of every served timestamp, rendered at serving time for the same instant (http/time-format.ts); default 'as-generated' */
  timeFormat: TimeFormat;
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
  /** cap on the page size served by every list (meta.per_page and offsets use it); default null */
  servedPerPage: number | null;
  /** next_page = page + 1 whenever the page is full, even the last one; default false */
  nextPageOnFullPage: boolean;
  /** meta.per_page says what was asked, whatever servedPerPage serves (a page size misreported); default false */
  perPageAsAsked: boolean;
  /** this many conversations, spread over the history when set, are counted in list totals but never listed; default 0 */
  hiddenFromLists: number;
  /**
   * every list answer's meta.total counts this many more conversations than its window holds
   * (a cached or approximate count, off by a constant for good); nothing else changes; default 0
   */
  listTotalExcess: number;
  /** new conversations (arrivals, addConversations without startedAt) started this long before the simulated now, finished by it; default 0 */
  arrivalLagMs: number;
  /** how long a served recording_url lives, in seconds; default 300 */
  recordingLinkSeconds: number;
  /** the recording host's origin (http://127.0.0.1:PORT), set once the server listens */
  recordingOrigin: string;
  /** a fresh signed link of a conversation's recording on the recording host, set once the server listens */
  recordingLinkOf: ((id: string) => string) | null;
}

export const RETRY_AFTER_MODES = ['exact', 'missing', 'long'] as const;
export type RetryAfterMode = (typeof RETRY_AFTER_MODES)[number];

export interface SimulatorOptions extends Partial<Omit<RuntimeOptions, 'latency' | 'faults'>> {
  /** default 7 */
  seed?: number;
  /** the space's slug instead of the one drawn from the seed */
  spaceSlug?: string;
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
  /** incidents planted in the generated history for alert rules to find (dataset/incidents.ts) */
  incidents?: IncidentOptions;
  /** serve an already generated dataset (seed/conversations/now/days/exoticValues then ignored) */
  dataset?: Dataset;
  /** finished conversations served as real data arrives (long, hard text, type drift, deleted); see real-data/real-data.ts */
  realData?: RealDataOptions;
  /**
   * a server whose clock is off by this many seconds (negative: behind): its clock, every time it
   * writes (the generated history with it) and its Date header are shifted by it; default 0
   */
  clockSkewSeconds?: number;
  /**
   * a server in a zone this many minutes off UTC that writes its local time marked `+00:00` (-300: a
   * UTC-5 server writes 14:00+00:00 for 19:00 UTC): every time it writes is shifted, its Date header
   * is not; default 0
   */
  localTimeAsUtcMinutes?: number;
  /** the recording host's slow, truncated, reset and missing recordings, signing, redirects, storage and chunking (recordings.ts) */
  recordings?: Partial<RecordingOptions>;
}

/** How far a skewed simulator's written times and its Date header are from the true time (ms). */
export function clockShifts(opts: Pick<SimulatorOptions, 'clockSkewSeconds' | 'localTimeAsUtcMinutes'>): { writtenMs: number; dateHeaderMs: number } {
  const skewMs = Math.round((opts.clockSkewSeconds ?? 0) * 1000);
  return { writtenMs: skewMs + Math.round((opts.localTimeAsUtcMinutes ?? 0) * 60_000), dateHeaderMs: skewMs };
}


/** The API key of a simulator started with this seed and no apiKey. */
export function defaultApiKey(seed: number): string {
  return `np_sim_${new Rng(hashSeed(seed >>> 0, 0x6b6579)).hex(16)}`;
}

/** The runtime options at start: those given, the defaults for the rest. */
export function initialOptions(opts: SimulatorOptions, seed: number, dataset: Dataset): RuntimeOptions {
  return {
    apiKey: opts.apiKey ?? defaultApiKey(seed),
    rateLimit: opts.rateLimit ?? 60,
    windowMs: opts.windowMs ?? 60_000,
    rateAlgorithm: opts.rateAlgorithm ?? 'rolling',
    burst: opts.burst ?? defaultBurst(opts.rateLimit ?? 60),
    retryAfter: opts.retryAfter ?? 'exact',
    revokeKeyAfter: opts.revokeKeyAfter ?? null,
    timeFormat: opts.timeFormat ?? 'as-generated',
    latency: { listMs: 0, detailMs: 0, otherMs: 0, ...opts.latency },
    faults: { error5xx: 0, drop: 0, truncate: 0, ...opts.faults },
    confidential: opts.confidential ?? dataset.confidential,
    arrivalsPerMinute: opts.arrivalsPerMinute ?? 0,
    otherClientRpm: opts.otherClientRpm ?? 0,
    unstableTies: opts.unstableTies ?? true,
    autoFinish: opts.autoFinish ?? false,
    logRequests: opts.logRequests ?? true,
    onRequest: opts.onRequest ?? null,
    servedPerPage: opts.servedPerPage ?? null,
    nextPageOnFullPage: opts.nextPageOnFullPage ?? false,
    perPageAsAsked: opts.perPageAsAsked ?? false,
    hiddenFromLists: opts.hiddenFromLists ?? 0,
    listTotalExcess: opts.listTotalExcess ?? 0,
    arrivalLagMs: opts.arrivalLagMs ?? 0,
    recordingLinkSeconds: opts.recordingLinkSeconds ?? 300,
    recordingOrigin: '',
    recordingLinkOf: null,
  };
}
