// Syncing a space: what a sync takes (options, client settings) and gives back (progress,
// summary), and its entry points: sync (one space, with its own lock, client and writer) and
// crawlSpace (one space's run on a client and writer the caller owns, as syncSpaces does for
// many). The run itself, phase by phase, is SyncRun (sync-run.ts).

import type { WaitReason } from '../api/rate-limiter.js';
import { ApiClient, type ConnectionTrouble } from '../api/client.js';
import type { ListingGapSummary } from './listing.js';
import { acquireSyncLock } from '../store/sync-lock.js';
import type { DetailsMode } from './plan.js';
import { SyncRun } from './sync-run.js';
import { BatchWriter } from './writer.js';
import { existsSync } from 'node:fs';
import { checkWritableDatabase } from '../store/database.js';
import { loadRecentSends, peekRecentSends, saveRecentSends } from '../store/recent-sends.js';

export { countersOfFailedRun, type FailedRunCounters } from './sync-run.js';

/** What one space's crawl takes, whoever made its client and writer (sync, or syncSpaces for many). */
export interface CrawlOptions {
  dbPath: string;
  details?: DetailsMode;
  since?: Date;
  until?: Date;
  full?: boolean;
  /** fetch again every detail set aside, not only those whose list entry changed */
  retrySetAside?: boolean;
  /** how far before the watermark an incremental run starts listing (default 1 h) */
  overlapMs?: number;
  /** requests in flight at once (default 32: latency must not cost throughput) */
  concurrency?: number;
  /** details per committed batch (default 100) */
  batchSize?: number;
  /** commit at least this often while details arrive (default 2 s) */
  flushIntervalMs?: number;
  /** pending details per plan (default PLAN_CHUNK, store/pending-details.ts) */
  planChunk?: number;
  /** DuckDB's cap while the writer checkpoints (default CHECKPOINT_MEMORY_LIMIT, database.ts) */
  checkpointMemoryLimit?: string;
  /** DuckDB's cap while the writer writes (default WRITER_MEMORY_LIMIT, database.ts) */
  writerMemoryLimit?: string;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  now?: () => Date;
}

/** Where one space's API is, its key, and how its client behaves. */
export interface ClientSettings {
  baseUrl: string;
  apiKey: string;
  /** cap below the key's limit, to leave room for other integrations */
  maxRpm?: number;
  /** the rate limit's window; the API's is a minute (tests shrink it) */
  windowMs?: number;
  /** give up on one attempt of a request after this long (default 30 s) */
  timeoutMs?: number;
  /** attempts after the first for a failing request (default 6) */
  maxRetries?: number;
}

export interface SyncOptions extends CrawlOptions, ClientSettings {}

export type SyncPhase = 'dimensions' | 'listing' | 'details' | 'done';

export interface SyncProgress {
  phase: SyncPhase;
  listed: number;
  listTotal: number | null;
  detailsDone: number;
  detailsTotal: number;
  requests: number;
  throttled: number;
  errors: number;
  startedAt: Date;
  /** the run's listing window (ISO; from null: the beginning of history), once planned */
  window: { from: string | null; to: string } | null;
  /** the rate limit as the limiter sees it now: our sends in its window, and its budget per window */
  rate: {
    inWindow: number;
    budget: number;
    windowMs: number;
    /** when each of our sends in the window leaves it, in ms from now, soonest first */
    leaveInMs?: number[];
  };
  /** requests still to send for what is known to be left (list pages, then details); null when unknown */
  requestsLeft: number | null;
  /**
   * nothing can be sent right now: why, how long since our last send, and when the next may go
   * when the limiter knows (own window, Retry-After, refill)
   */
  waiting: { reason: WaitReason; forMs: number; nextInMs: number | null } | null;
  /** requests cannot connect (refused, unknown host…) and are being retried: what fails, and the attempt due */
  connection?: ConnectionTrouble | null;
}

export type SyncStatus = 'ok' | 'errors' | 'interrupted';
export type { ListingGapSummary };

export interface SyncSummary {
  runId: number;
  status: SyncStatus;
  space: string;
  windowFrom: string | null;
  windowTo: string;
  requests: number;
  throttled: number;
  retries: number;
  conversationsListed: number;
  detailsFetched: number;
  /** of detailsFetched, stored with some value coerced by a documented rule */
  detailsCoerced: number;
  /** details set aside this run: raw body kept, reason recorded, not fetched again until their listing changes */
  detailsSetAside: number;
  /** conversations found deleted at the source this run (never fetched again) */
  conversationsDeleted: number;
  /** listed conversations still without a detail the next run fetches */
  detailsPending: number;
  errors: number;
  /** conversations the server counts in the window but never served (0: the listing added up) */
  listingShortfall: number;
  /** the span of the windows that did not add up, or null */
  listingGap: ListingGapSummary | null;
  seconds: number;
}

/** One space, the key's: takes the database's sync lock, crawls, releases it. */
export async function sync(options: SyncOptions): Promise<SyncSummary> {
  checkWritableDatabase(options.dbPath);
  const lock = acquireSyncLock(options.dbPath);
  const client = spaceClient(options, options);
  // GET /spaces goes first: it, too, must not meet a window the last run filled
  const early = await peekRecentSends(options.dbPath, `${client.baseUrl.origin}${client.baseUrl.pathname}`).catch(() => null);
  if (early) client.limiter.seedEarlierSends(early.sentAt.map((t) => Date.now() - t), early.keyLimit ?? undefined);
  const writer = new BatchWriter(options.dbPath, { checkpoint: options.checkpointMemoryLimit, write: options.writerMemoryLimit });
  try {
    return await crawlSpace(options, { client, writer, ...(early ? { seeded: early.space } : {}) });
  } finally {
    // a write resolves before its opening of the file is closed: the file is free only once idle
    await writer.idle();
    await client.close();
    lock.release();
  }
}

/** A space's own HTTP client: its own rate limiter for its key. */
export function spaceClient(settings: ClientSettings, options: Pick<CrawlOptions, 'concurrency' | 'signal'>): ApiClient {
  return new ApiClient({
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    maxRpm: settings.maxRpm,
    windowMs: settings.windowMs,
    concurrency: options.concurrency ?? 32,
    timeoutMs: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    signal: options.signal,
  });
}

/** What a space's crawl shares with others in the same process: its client, and the one writer of the file. */
export interface CrawlResources {
  client: ApiClient;
  /** the file's one writer (the caller holds the sync lock) */
  writer: BatchWriter;
  /** the space's slug, when GET /spaces was already asked (else the crawl asks first) */
  space?: string;
  /** called once the space is known, before the run's first write */
  onSpace?: (space: string) => Promise<void>;
  /** the space whose last sends the client's limiter already counts */
  seeded?: string;
}

/** One space's run on a client and writer the caller owns. */
export async function crawlSpace(options: CrawlOptions, resources: CrawlResources): Promise<SyncSummary> {
  const { client, writer } = resources;
  const baseUrl = `${client.baseUrl.origin}${client.baseUrl.pathname}`;
  // Once GET /spaces has proved the key (a 401 leaves the database untouched): the key's window may
  // still hold this database's last run's requests, which the limiter then counts as its own.
  const onSpace = async (space: string): Promise<void> => {
    await resources.onSpace?.(space);
    if (resources.seeded === space || !existsSync(options.dbPath)) return;
    const earlier = await writer.write((db) => loadRecentSends(db, baseUrl, space));
    if (earlier) client.limiter.seedEarlierSends(earlier.sentAt.map((t) => Date.now() - t), earlier.keyLimit ?? undefined);
  };
  const run = new SyncRun(options, { ...resources, onSpace });
  // Progress also while nothing arrives (a wait for the rate limit, the first response): the
  // printer then logs at least every 5 s, and a terminal's wait counts up.
  const ticker = options.onProgress ? setInterval(() => run.tick(), TICK_MS) : undefined;
  ticker?.unref();
  try {
    const summary = await run.run();
    // what this run sent in its last window, for the next run (an interrupted one's too)
    const at = Date.now();
    const sentAt = client.limiter.recentSendAges().map((age) => at - age);
    const { limit } = client.limiter.stats();
    await writer.write((db) => saveRecentSends(db, summary.space, baseUrl, sentAt, limit)).catch(() => undefined);
    return summary;
  } finally {
    clearInterval(ticker);
  }
}

const TICK_MS = 250;
