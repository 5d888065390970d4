// Many spaces into one database in one run: one sync lock and one writer for the file (DuckDB
// allows one instance per file in a process), and per space its own client (its key's rate
// limiter), watermark, listing window and sync_runs row. Every space's key is proven first
// (GET /spaces); a space whose key is refused or whose server cannot be reached is reported and
// skipped, the others are crawled at once.

import { peekAllRecentSends } from '../store/recent-sends.js';
import { AuthError } from '../api/client.js';
import type { ApiClient } from '../api/client.js';
import { InvalidInputError } from '../shared/errors.js';
import { checkWritableDatabase } from '../store/database.js';
import { waitForSyncLock } from '../store/sync-lock.js';
import {
  countersOfFailedRun,
  crawlSpace,
  heal,
  keepCopy,
  spaceClient,
  type ClientSettings,
  type CrawlOptions,
  type FailedRunCounters,
  type SyncProgress,
  type SyncSummary,
} from './sync.js';
import { BatchWriter } from './writer.js';
import type { Redaction } from '../redact/index.js';
import { prepareAtRest } from './prepare-at-rest.js';

/** One space to crawl: its API, key and client settings. */
export interface SpaceTarget extends ClientSettings {
  /** how messages name the space while its slug is not known */
  label: string;
  /** the slug GET /spaces must name (a mismatch stops the run before anything is stored) */
  slug?: string;
  /** this space's redaction at rest (src/redact/stored-body.ts); null or absent: off */
  redactAtRest?: Redaction | null;
  /** this space's recordings (absent: off) */
  recordings?: CrawlOptions['recordings'];
}

export interface SpacesOptions extends Omit<CrawlOptions, 'onProgress'> {
  spaces: SpaceTarget[];
  /** crawl only these slugs; a target whose slug is given and not among them is never asked anything */
  only?: string[];
  onProgress?: (space: string, progress: SyncProgress) => void;
}

/**
 * How a space's run ended: as a crawl does (ok, errors, interrupted), or `refused` (the API refused
 * its key), `unreachable` (its server could not be asked for the space), `failed` (the run
 * stopped on another error; what was fetched is kept).
 */
export type SpaceStatus = SyncSummary['status'] | 'refused' | 'unreachable' | 'failed';

export interface SpaceOutcome {
  /** the position of its target in `spaces` */
  target: number;
  /** its slug, or its label when GET /spaces never named it */
  space: string;
  status: SpaceStatus;
  /** a run that finished */
  summary: SyncSummary | null;
  /** what ended a run that did not finish (its counters, when it had started) */
  error: unknown;
  counters: FailedRunCounters | null;
}

export interface SpacesSummary {
  spaces: SpaceOutcome[];
  seconds: number;
}

/** GET /spaces named another space than the caller expected: nothing was stored. */
export class SpaceMismatchError extends InvalidInputError {}
/** Two targets are the same space: nothing was stored. */
export class DuplicateSpaceError extends InvalidInputError {}
/** `only` names a slug no target has. */
export class SpaceNotInJobError extends InvalidInputError {
  constructor(
    readonly unknown: string[],
    readonly known: string[],
  ) {
    super(
      `no space ${unknown.map((s) => JSON.stringify(s)).join(', ')} in this job — known: ${known.length > 0 ? known.join(', ') : 'none'}`,
    );
  }
}

interface Resolved {
  target: number;
  client: ApiClient;
  space: string;
}

export async function syncSpaces(options: SpacesOptions): Promise<SpacesSummary> {
  const started = Date.now();
  checkWritableDatabase(options.dbPath);
  const only = options.only && options.only.length > 0 ? new Set(options.only) : null;
  const configured = options.spaces.map((t) => t.slug).filter((s): s is string => s !== undefined);
  // Whether a target is needed: its slug is asked for, or it must be asked for its slug.
  const needed = options.spaces.map((t) => only === null || t.slug === undefined || only.has(t.slug));
  if (only !== null && options.spaces.every((t) => t.slug !== undefined)) refuseUnknown(only, configured, []);

  const lock = await waitForSyncLock(options.dbPath, options.lockWaitMs ?? 0, options.signal, { leaseMs: options.lockLeaseMs });
  // before anything opens the file (the peek below too)
  const healing = await heal(options);
  // a lock taken over by another process (this one stalled beyond the lease) stops the crawl too
  const userSignal = options.signal;
  const signal = userSignal ? AbortSignal.any([userSignal, lock.lost]) : lock.lost;
  options = { ...options, restored: healing.restored, signal };
  const clients: ApiClient[] = [];
  const writer = new BatchWriter(options.dbPath);
  try {
    const outcomes: SpaceOutcome[] = [];
    const resolved: Resolved[] = [];
    // A configured space's last sends are counted before its GET /spaces: that request, too, must
    // not meet a window the last run filled.
    const earlier = await peekAllRecentSends(options.dbPath).catch(() => []);
    const seeded = new Set<number>();
    // Every key is proven (and every slug read) before anything is stored.
    await Promise.all(
      options.spaces.map(async (target, i) => {
        if (!needed[i]) return;
        const client = spaceClient(target, options);
        clients.push(client);
        const base = `${client.baseUrl.origin}${client.baseUrl.pathname}`;
        const sends = earlier.find((s) => s.space === target.slug && s.baseUrl === base);
        if (sends) {
          client.limiter.seedEarlierSends(sends.sentAt.map((t) => Date.now() - t), sends.keyLimit ?? undefined);
          seeded.add(i);
        }
        try {
          resolved.push({ target: i, client, space: (await client.getSpace()).slug });
        } catch (err) {
          outcomes.push({ target: i, space: target.slug ?? target.label, status: failureStatus(err, userSignal, true), summary: null, error: err, counters: null });
        }
      }),
    );
    resolved.sort((a, b) => a.target - b.target);
    for (const r of resolved) {
      const target = options.spaces[r.target]!;
      if (target.slug !== undefined && target.slug !== r.space) {
        throw new SpaceMismatchError(
          `${target.label}: the key belongs to space ${r.space}, not ${target.slug} — fix the slug (or the key) in the config`,
        );
      }
      const twin = resolved.find((o) => o.target < r.target && o.space === r.space);
      if (twin) {
        throw new DuplicateSpaceError(
          `${target.label} and ${options.spaces[twin.target]!.label} are both space ${r.space} — list each space once`,
        );
      }
    }
    const unasked = outcomes.filter((o) => options.spaces[o.target]!.slug === undefined).map((o) => o.space);
    if (only !== null) refuseUnknown(only, [...new Set([...configured, ...resolved.map((r) => r.space)])], unasked);

    const chosen = resolved.filter((r) => only === null || only.has(r.space));
    // every space's redaction at rest fits the file before any is crawled: a refused run stores nothing
    const atRestOf = (r: Resolved) => options.spaces[r.target]!.redactAtRest ?? null;
    const redacted = await prepareAtRest(options.dbPath, writer, chosen.map((r) => ({ space: r.space, redaction: atRestOf(r) })), options.now ?? (() => new Date()));
    for (const [space, bodies] of redacted) options.onStoredRedacted?.(space, bodies);
    await Promise.all(
      chosen.map(async (r) => {
        const onProgress = options.onProgress;
        const crawl: CrawlOptions = { ...options, redactAtRest: atRestOf(r), recordings: options.spaces[r.target]!.recordings, onProgress: onProgress ? (p) => onProgress(r.space, p) : undefined };
        try {
          const summary = await crawlSpace(crawl, { client: r.client, writer, space: r.space, ...(seeded.has(r.target) ? { seeded: r.space } : {}) });
          const lost = lock.lost.aborted && !userSignal?.aborted;
          outcomes.push({ target: r.target, space: r.space, status: lost ? 'failed' : summary.status, summary, error: lost ? lock.lost.reason : null, counters: null });
        } catch (err) {
          outcomes.push({
            target: r.target,
            space: r.space,
            status: failureStatus(err, userSignal, false),
            summary: null,
            error: lock.lost.aborted && !userSignal?.aborted ? lock.lost.reason : err,
            counters: countersOfFailedRun(err) ?? null,
          });
        }
      }),
    );
    outcomes.sort((a, b) => a.target - b.target);
    return { spaces: outcomes, seconds: (Date.now() - started) / 1000 };
  } finally {
    // a write resolves before its opening of the file is closed: the file is free only once idle
    await writer.idle();
    keepCopy(options.dbPath, healing);
    await Promise.all(clients.map((c) => c.close()));
    lock.release();
  }
}

function failureStatus(err: unknown, signal: AbortSignal | undefined, beforeCrawl: boolean): SpaceStatus {
  if (signal?.aborted) return 'interrupted';
  if (err instanceof AuthError) return 'refused';
  return beforeCrawl ? 'unreachable' : 'failed';
}

function refuseUnknown(only: Set<string>, known: string[], unasked: string[]): void {
  const unknown = [...only].filter((s) => !known.includes(s));
  if (unknown.length === 0) return;
  const error = new SpaceNotInJobError(unknown, [...known].sort());
  // a space whose key could not be used may be the one asked for: say so
  if (unasked.length > 0) error.message += ` (not asked: ${unasked.join(', ')})`;
  throw error;
}
