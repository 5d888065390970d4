// What a sync takes (options, client settings, the resources a crawl shares) and gives back
// (progress, summary): apart from sync.ts, so that the run (sync-run.ts) and its entry points
// import them without importing each other.

import type { ApiClient, ConnectionTrouble } from '../api/client.js';
import type { WaitReason } from '../api/rate-limiter.js';
import type { ListingGapSummary } from './listing.js';
import type { DetailsMode } from './plan.js';
import type { RunCounters } from '../store/sync-runs.js';
import type { Redaction } from '../redact/index.js';
import type { BatchWriter } from './writer.js';
import type { Restored } from '../store/restore-last-good.js';

export type { ListingGapSummary };

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
  /** DuckDB's cap for a write tried again after it failed under writerMemoryLimit (default RAISED_MEMORY_LIMIT, database.ts) */
  raisedMemoryLimit?: string;
  /** redact each conversation before it is stored, with this key (src/redact/stored-body.ts); null or absent: off */
  redactAtRest?: Redaction | null;
  /** a space turning redaction at rest on held clear text: that many stored bodies were redacted, the file rewritten */
  onStoredRedacted?: (space: string, bodies: number) => void;
  /** the file was damaged and its last-good copy put in its place before the run (store/restore-last-good.ts) */
  onRestored?: (restored: Restored) => void;
  /** what this run's sync_runs row records of such a restore (set by the entry points, not the caller) */
  restored?: Restored | null;
  /** how long to wait for another sync of the database to end before giving up (default 0: at once) */
  lockWaitMs?: number;
  /** a sync lock of another host whose heartbeat has not moved for this long is taken over (default: store/sync-lock.ts) */
  lockLeaseMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  now?: () => Date;
  /** the space's recordings, downloaded beside the crawl once known (absent: off) */
  recordings?: (space: string, client: ApiClient, writer: Pick<BatchWriter, 'write'>) => RecordingHook;
}

/** What the crawl tells the recordings of a space: each detail stored with a link, and its end. */
export interface RecordingHook {
  stored(id: string, link: string, startedAt: string | null): void;
  /** after the details: waits for the downloads (and fetches what earlier runs still owe) */
  finish(): Promise<unknown>;
  progress(): RecordingsProgress & { linksLeft: number | null };
}

/** Downloads of recordings finished (stored or not) of those known so far, and the bytes stored. */
export interface RecordingsProgress {
  done: number;
  total: number;
  bytes: number;
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

export type SyncPhase = 'dimensions' | 'listing' | 'details' | 'recordings' | 'done';

export interface SyncProgress {
  phase: SyncPhase;
  listed: number;
  listTotal: number | null;
  detailsDone: number;
  detailsTotal: number;
  requests: number;
  /** requests sent since this phase began (its own pace, apart from the phases before it) */
  phaseRequests?: number;
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
  /** `sync --recordings`: the downloads, once the first is queued */
  recordings?: RecordingsProgress | null;
}

export type SyncStatus = 'ok' | 'errors' | 'interrupted';

/** What a run did (its counts as sync_runs keeps them), and how it ended. */
export interface SyncSummary extends RunCounters {
  runId: number;
  status: SyncStatus;
  space: string;
  windowFrom: string | null;
  windowTo: string;
  /** listed conversations still without a detail the next run fetches */
  detailsPending: number;
  /**
   * configuration bodies (list entries, Get agent responses) this run stored coerced: counted
   * from the rows it wrote with body_received, not a sync_runs column
   */
  configBodiesCoerced: number;
  /** conversations the server counts in the window but never served (0: the listing added up) */
  listingShortfall: number;
  /** the span of the windows that did not add up, or null */
  listingGap: ListingGapSummary | null;
  /**
   * conversations the server counted in the window beyond those it served once the listing
   * ended (0: it added up; null: the listing did not end), as sync_runs.server_count_excess
   */
  serverCountExcess: number | null;
  /**
   * the window, when the server's count stayed off by as much as in the space's run before and
   * every conversation stored there was served again: what was served is trusted (not a gap)
   */
  countOff: { from: string | null; to: string; counted: number; served: number } | null;
  /** the server's clock (its Date header) minus this machine's, in seconds; null without a Date header */
  clockSkewSeconds: number | null;
  /** the newest started_at the listing served (ISO), or null when its window held none */
  newestStartedAt: string | null;
  /** how far newestStartedAt lies after the server's now at the run's start (seconds; negative: before it) */
  newestAheadSeconds: number | null;
  /** the file was damaged and the last-good copy, taken then (ISO), put in its place before the run; null: it was not */
  restoredFromCopyAt: string | null;
  /** where that restore kept the damaged file */
  damagedFileKeptAs: string | null;
  seconds: number;
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
