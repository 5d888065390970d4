// Syncing a space, its entry points: sync (one space, with its own lock, client and writer) and
// crawlSpace (one space's run on a client and writer the caller owns, as syncSpaces does for
// many). What they take and give back is in sync-types.ts; the run itself is SyncRun (sync-run.ts).

import { keepLastGood } from '../store/last-good.js';
import { restoreIfDamaged, type Healing } from '../store/restore-last-good.js';
import { ApiClient } from '../api/client.js';
import { waitForSyncLock } from '../store/sync-lock.js';
import { SyncRun } from './sync-run.js';
import type { ClientSettings, CrawlOptions, CrawlResources, SyncOptions, SyncSummary } from './sync-types.js';
import { BatchWriter } from './writer.js';
import { prepareAtRest } from './prepare-at-rest.js';
import { existsSync } from 'node:fs';
import { checkWritableDatabase } from '../store/database.js';
import { loadRecentSends, peekRecentSends, saveRecentSends } from '../store/recent-sends.js';

export { countersOfFailedRun, type FailedRunCounters } from './failed-runs.js';
export type {
  ClientSettings,
  CrawlOptions,
  CrawlResources,
  ListingGapSummary,
  SyncOptions,
  SyncPhase,
  SyncProgress,
  SyncStatus,
  SyncSummary,
} from './sync-types.js';

/** One space, the key's: takes the database's sync lock, crawls, releases it. */
export async function sync(options: SyncOptions): Promise<SyncSummary> {
  checkWritableDatabase(options.dbPath);
  const lock = await waitForSyncLock(options.dbPath, options.lockWaitMs ?? 0, options.signal, { leaseMs: options.lockLeaseMs });
  // before anything opens the file (the peek below too)
  const healing = await heal(options);
  const userSignal = options.signal;
  // a lock taken over by another process (this one stalled beyond the lease) stops the crawl too
  options = { ...options, restored: healing.restored, signal: userSignal ? AbortSignal.any([userSignal, lock.lost]) : lock.lost };
  const client = spaceClient(options, options);
  // GET /spaces goes first: it, too, must not meet a window the last run filled
  const early = await peekRecentSends(options.dbPath, `${client.baseUrl.origin}${client.baseUrl.pathname}`).catch(() => null);
  if (early) client.limiter.seedEarlierSends(early.sentAt.map((t) => Date.now() - t), early.keyLimit ?? undefined);
  const writer = new BatchWriter(options.dbPath, { checkpoint: options.checkpointMemoryLimit, write: options.writerMemoryLimit, raised: options.raisedMemoryLimit });
  try {
    // Redaction at rest is checked (stored clear text redacted) once the crawl's first request has
    // named the space, before anything is stored; that request shows on the progress line like any.
    const onSpace = async (space: string): Promise<void> => {
      const redacted = await prepareAtRest(options.dbPath, writer, [{ space, redaction: options.redactAtRest ?? null }], options.now ?? (() => new Date()));
      for (const [name, bodies] of redacted) options.onStoredRedacted?.(name, bodies);
    };
    const summary = await crawlSpace(options, { client, writer, onSpace, ...(early ? { seeded: early.space } : {}) });
    if (lock.lost.aborted && !userSignal?.aborted) throw lock.lost.reason;
    return summary;
  } catch (err) {
    throw lock.lost.aborted && !userSignal?.aborted ? lock.lost.reason : err;
  } finally {
    // a write resolves before its opening of the file is closed: the file is free only once idle
    await writer.idle();
    keepCopy(options.dbPath, healing);
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

/**
 * The file as this run left it, kept beside it (store/last-good.ts); a copy that cannot be made (a
 * full disk) fails nothing. A file found damaged and not restored is no copy to keep.
 */
export function keepCopy(dbPath: string, healing: Healing | null): void {
  if (healing === null || (healing.damaged && healing.restored === null)) return;
  try {
    keepLastGood(dbPath);
  } catch {
    // the previous copy stays
  }
}

/**
 * A damaged file is put back from its copy before anything opens it; a restore that fails (a
 * full disk) leaves the file as it was, and the opening that follows fails as it would have.
 */
export async function heal(options: Pick<CrawlOptions, 'dbPath' | 'onRestored' | 'now'>): Promise<Healing> {
  let healing: Healing;
  try {
    healing = await restoreIfDamaged(options.dbPath, options.now?.() ?? new Date());
  } catch {
    return { damaged: true, restored: null };
  }
  if (healing.restored) options.onRestored?.(healing.restored);
  return healing;
}
