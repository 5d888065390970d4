// One sync run: dimensions, then the listing of a pinned window, then the details still
// missing. Progress is committed page by page and batch by batch, so a run killed at any
// point resumes where the database says it stopped.

import pLimit from 'p-limit';
import { ApiClient, AuthError, NotFoundError, ApiError } from '../api/client.js';
import type { ConversationSummary, ListResponse } from '../api/types.js';
import { MAX_PER_PAGE } from '../api/types.js';
import { countMissingDetails, getWatermark, pendingDetailIds, setWatermark } from '../store/state.js';
import {
  finishRun,
  recordErrors,
  saveDetails,
  saveDimensions,
  saveListPage,
  startRun,
  type FetchedDetail,
  type RunCounters,
  type SyncErrorRecord,
} from '../store/writes.js';
import { acquireSyncLock } from './lock.js';
import { countInWindow, planWindow, splitWindow, type DetailsMode } from './plan.js';
import { detailProblem, nestsTooDeep } from './validate.js';
import { BatchWriter } from './writer.js';
import { checkWritableDatabase, Database } from '../store/database.js';

export interface SyncOptions {
  baseUrl: string;
  apiKey: string;
  dbPath: string;
  details?: DetailsMode;
  since?: Date;
  until?: Date;
  full?: boolean;
  /** how far before the watermark an incremental run starts listing (default 1 h) */
  overlapMs?: number;
  /** cap below the key's limit, to leave room for other integrations */
  maxRpm?: number;
  /** the rate limit's window; the API's is a minute (tests shrink it) */
  windowMs?: number;
  /** requests in flight at once (default 32: latency must not cost throughput) */
  concurrency?: number;
  /** give up on one attempt of a request after this long (default 30 s) */
  timeoutMs?: number;
  /** attempts after the first for a failing request (default 6) */
  maxRetries?: number;
  /** details per committed batch (default 100) */
  batchSize?: number;
  /** commit at least this often while details arrive (default 2 s) */
  flushIntervalMs?: number;
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
  now?: () => Date;
}

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
}

export type SyncStatus = 'ok' | 'errors' | 'interrupted';

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
  /** listed conversations still without a usable detail (the next run fetches them) */
  detailsPending: number;
  errors: number;
  seconds: number;
}

const DEFAULT_OVERLAP_MS = 3_600_000;
/** Below this a window that still does not add up is reported rather than split further. */
const SMALLEST_SPLIT_MS = 1_000;

export async function sync(options: SyncOptions): Promise<SyncSummary> {
  checkWritableDatabase(options.dbPath);
  const lock = acquireSyncLock(options.dbPath);
  const client = new ApiClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    maxRpm: options.maxRpm,
    windowMs: options.windowMs,
    concurrency: options.concurrency ?? 32,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
  });
  try {
    return await new SyncRun(options, client).run();
  } finally {
    await client.close();
    lock.release();
  }
}

class SyncRun {
  private readonly now: () => Date;
  private readonly writer: BatchWriter;
  private readonly startedAt: Date;
  /** started_at of each conversation listed so far (only the listing needs it: cleared after) */
  private readonly seen = new Map<string, number>();
  private listed = 0;
  private readonly errors: SyncErrorRecord[] = [];
  private space = '';
  private runId = 0;
  private listTotal: number | null = null;
  private detailsDone = 0;
  private detailsTotal = 0;
  private detailsFetched = 0;
  private errorCount = 0;
  private phase: SyncPhase = 'dimensions';
  private fatal: unknown = null;

  constructor(
    private readonly options: SyncOptions,
    private readonly client: ApiClient,
  ) {
    this.now = options.now ?? (() => new Date());
    this.writer = new BatchWriter(options.dbPath);
    this.startedAt = this.now();
  }

  async run(): Promise<SyncSummary> {
    // The first request proves the key before the database is touched: a 401 changes nothing.
    this.space = (await this.client.getSpace()).slug;
    const { window, runId } = await Database.with(this.options.dbPath, async (db) => {
      const window = planWindow({
        now: this.startedAt,
        watermark: await getWatermark(db),
        overlapMs: this.options.overlapMs ?? DEFAULT_OVERLAP_MS,
        since: this.options.since,
        until: this.options.until,
        full: this.options.full,
      });
      const runId = await startRun(db, this.startedAt, this.space, window.from, window.to);
      return { window, runId };
    });
    this.runId = runId;

    let status: SyncStatus = 'ok';
    try {
      await this.syncDimensions();
      this.setPhase('listing');
      const complete = await this.listWindow(window.from?.getTime() ?? null, window.to.getTime());
      this.listed = this.seen.size;
      this.seen.clear(); // 100,000 ids: ~10 MB the details phase does not need
      if (complete && window.advancesWatermark && !this.aborted) {
        await this.writer.write((db) => setWatermark(db, window.to));
      }
      if (this.options.details?.kind !== 'none' && !this.aborted) {
        await this.fetchDetails();
      }
      await this.writer.idle();
      if (this.fatal) throw this.fatal;
      if (this.aborted) status = 'interrupted';
      else if (this.errorCount > 0) status = 'errors';
    } catch (err) {
      await this.writer.idle();
      const failure = err instanceof Error ? err.message : String(err);
      await this.writer
        .write((db) => finishRun(db, this.runId, this.now(), 'failed', this.counters(), failure))
        .catch(() => undefined);
      throw err;
    }
    const pending = await this.writer
      .write(async (db) => {
        if (this.errors.length > 0) await recordErrors(db, this.runId, this.errors.splice(0));
        await finishRun(db, this.runId, this.now(), status, this.counters(), null);
      })
      .then(() => this.countPending());
    this.setPhase('done');
    const c = this.counters();
    return {
      runId: this.runId,
      status,
      space: this.space,
      windowFrom: window.from?.toISOString() ?? null,
      windowTo: window.to.toISOString(),
      requests: c.requests,
      throttled: c.throttled,
      retries: c.retries,
      conversationsListed: c.conversationsListed,
      detailsFetched: c.detailsFetched,
      detailsPending: pending,
      errors: c.errors,
      seconds: (this.now().getTime() - this.startedAt.getTime()) / 1000,
    };
  }

  private get aborted(): boolean {
    return this.options.signal?.aborted === true || this.fatal !== null;
  }

  private counters(): RunCounters {
    const stats = this.client.stats;
    return {
      requests: stats.requests,
      throttled: stats.throttled,
      retries: stats.retries,
      conversationsListed: this.listedCount,
      detailsFetched: this.detailsFetched,
      errors: this.errorCount,
    };
  }

  private async countPending(): Promise<number> {
    return Database.with(this.options.dbPath, countMissingDetails);
  }

  private setPhase(phase: SyncPhase): void {
    this.phase = phase;
    this.report();
  }

  private report(): void {
    const stats = this.client.stats;
    this.options.onProgress?.({
      phase: this.phase,
      listed: this.listedCount,
      listTotal: this.listTotal,
      detailsDone: this.detailsDone,
      detailsTotal: this.detailsTotal,
      requests: stats.requests,
      throttled: stats.throttled,
      errors: this.errorCount,
      startedAt: this.startedAt,
    });
  }

  private recordError(stage: string, conversationId: string | null, err: unknown): void {
    this.errorCount++;
    this.errors.push({
      stage,
      conversationId,
      httpStatus: err instanceof ApiError ? err.status : null,
      message: err instanceof Error ? err.message : String(err),
      occurredAt: this.now(),
    });
  }

  private async syncDimensions(): Promise<void> {
    const base = `/spaces/${encodeURIComponent(this.space)}`;
    const agents: { id: string; body: string }[] = [];
    for await (const agent of this.client.listAll<{ id: string }>(`${base}/agents`, {})) {
      agents.push({ id: agent.id, body: JSON.stringify(agent) });
    }
    const tools: { id: string; body: string }[] = [];
    for await (const tool of this.client.listAll<{ id: string }>(`${base}/tools`, {})) {
      tools.push({ id: tool.id, body: JSON.stringify(tool) });
    }
    const fetchedAt = this.now();
    await this.writer.write((db) => saveDimensions(db, this.space, fetchedAt, agents, tools));
  }

  /**
   * Lists [fromMs, toMs] until every conversation the server counts in it has been seen.
   * Order among equal `started_at` values is not stable, so a page boundary can hide one
   * conversation and show another twice; such a window is split and its halves re-listed.
   * Returns whether the window is known to be complete.
   */
  private async listWindow(fromMs: number | null, toMs: number): Promise<boolean> {
    const limit = pLimit(this.options.concurrency ?? 32);
    const first = await this.listPage(fromMs, toMs, 1);
    const total = first.meta.total;
    if (fromMs === null) this.listTotal = total;
    const pages = Math.ceil(total / MAX_PER_PAGE);
    const done = () => this.countSeen(fromMs, toMs) >= total;
    if (!done()) {
      // The page count is known from the first page: fetch the rest in parallel.
      await Promise.all(
        Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
          limit(async () => {
            if (this.aborted || done()) return;
            await this.listPage(fromMs, toMs, i + 2);
          }),
        ),
      );
    }
    if (this.aborted) return false;
    if (done()) return true;

    const lower = fromMs ?? this.earliestSeen();
    const halves = toMs - lower > SMALLEST_SPLIT_MS ? splitWindow(lower, toMs) : null;
    if (!halves) {
      this.recordError(
        'listing',
        null,
        new Error(
          `listing ${iso(lower)}..${iso(toMs)} returned ${this.countSeen(lower, toMs)} of ${total} conversations`,
        ),
      );
      return false;
    }
    let complete = true;
    for (const [a, b] of halves) complete = (await this.listWindow(a, b)) && complete;
    return complete;
  }

  private async listPage(
    fromMs: number | null,
    toMs: number,
    page: number,
  ): Promise<ListResponse<ConversationSummary>> {
    const query: Record<string, string | number> = { to: iso(toMs), page, per_page: MAX_PER_PAGE };
    if (fromMs !== null) query.from = iso(fromMs);
    const listedAt = this.now();
    const response = await this.client.listPage<ConversationSummary>(
      `/spaces/${encodeURIComponent(this.space)}/conversations`,
      query,
    );
    const entries = response.data.map((c) => ({ id: c.id, body: JSON.stringify(c) }));
    for (const c of response.data) this.seen.set(c.id, Date.parse(c.started_at));
    await this.writer.write((db) => saveListPage(db, this.space, listedAt, entries));
    this.report();
    return response;
  }

  private get listedCount(): number {
    return Math.max(this.listed, this.seen.size);
  }

  private countSeen(fromMs: number | null, toMs: number): number {
    return countInWindow(this.seen.values(), fromMs ?? -Infinity, toMs);
  }

  private earliestSeen(): number {
    let earliest = Infinity;
    for (const t of this.seen.values()) if (t < earliest) earliest = t;
    return earliest;
  }

  private async fetchDetails(): Promise<void> {
    const firstOutcomes = this.options.details?.kind === 'first' ? this.options.details.outcomes : [];
    const ids = await Database.with(this.options.dbPath, (db) => pendingDetailIds(db, firstOutcomes));
    this.detailsTotal = ids.length;
    // (the phase changes once the total is known, so progress never shows "0/0")
    this.setPhase('details');

    const batchSize = this.options.batchSize ?? 100;
    const flushIntervalMs = this.options.flushIntervalMs ?? 2_000;
    let batch: FetchedDetail[] = [];
    let lastFlush = Date.now();
    let flushing: Promise<void> = Promise.resolve();

    const flush = () => {
      const details = batch;
      const errors = this.errors.splice(0);
      batch = [];
      lastFlush = Date.now();
      const counters = this.counters();
      flushing = this.writer.write((db) => saveDetails(db, this.space, details, errors, this.runId, counters));
      return flushing;
    };

    // A fixed pool of workers takes the ids in turn, rather than a queued closure and promise
    // per pending id (100,000 of them at once on a first sync).
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ids.length && !this.aborted) {
        const detail = await this.fetchDetail(ids[next++]!);
        this.detailsDone++;
        if (detail) {
          batch.push(detail);
          if (detail.invalidReason === null) this.detailsFetched++;
        }
        if (batch.length >= batchSize || Date.now() - lastFlush >= flushIntervalMs) {
          // Back-pressure: never hold more than one batch in memory beyond the one being written.
          await flush();
        }
        this.report();
      }
    };
    const workers = Math.min(this.options.concurrency ?? 32, ids.length);
    await Promise.all(Array.from({ length: workers }, worker));
    await flushing;
    if (batch.length > 0 || this.errors.length > 0) await flush();
  }

  private async fetchDetail(id: string): Promise<FetchedDetail | null> {
    try {
      const { json, text } = await this.client.getConversation(this.space, id);
      const fetchedAt = this.now();
      if (nestsTooDeep(json)) {
        this.recordError('detail', id, new Error('response nests too deeply to store'));
        return null;
      }
      const problem = detailProblem(json, id);
      if (problem) this.recordError('detail', id, new Error(`unusable response: ${problem}`));
      return { id, fetchedAt, body: text, invalidReason: problem };
    } catch (err) {
      if (err instanceof AuthError) {
        this.fatal ??= err;
        return null;
      }
      if (err instanceof NotFoundError || err instanceof Error) {
        this.recordError('detail', id, err);
        return null;
      }
      throw err;
    }
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
