// SyncRun: one space's sync run, from its first request to its summary: dimensions, then the
// listing of a pinned window, then the details still missing. Progress is committed page by page
// and batch by batch, so a run killed at any point resumes where the database says it stopped.
// What a run takes and gives back, and the entry points that start one, are in sync.ts.
//
// Its phases stand beside it: dimensions.ts, listing.ts, detail-phase.ts; and failed-runs.ts,
// send-wait.ts for what a run leaves behind and shows while it waits.

import { ApiError, type ApiClient } from '../api/client.js';
import type { ConversationSummary } from '../api/types.js';
import { MAX_PER_PAGE } from '../api/types.js';
import { describeShortWindow, recordListingGaps, type ShortWindow } from '../store/listing-gaps.js';
import { recordCountExcess, sameShortfallAsBefore } from '../store/count-excess.js';
import { countMissingDetails } from '../store/pending-details.js';
import { countCoercedBodies } from '../store/space-config.js';
import { DEFAULT_OVERLAP_MS, getListedNewest, setWatermark, storedInWindow, type TimeWindow } from '../store/watermark.js';
import { finishRun, recordErrors, recordRunClock, startRun, updateRun, type RunCounters, type SyncErrorRecord } from '../store/sync-runs.js';
import { markDeleted, saveListPage, type DeletedConversation } from '../store/writes.js';
import type { Database } from '../store/database.js';
import { checkAtRest, clearTextError, recordAtRest } from '../store/redaction-at-rest.js';
import { redactBody } from '../redact/index.js';
import { DetailPhase } from './detail-phase.js';
import { rememberFailedRun } from './failed-runs.js';
import { ListedBodies } from './listed-bodies.js';
import { DimensionCrawl } from './dimensions.js';
import { summariseShortWindows, WindowLister, type ListedPage, type ListingGapSummary } from './listing.js';
import { endFromFirstPage, nextListedNewest, planWindow, type ListWindow } from './plan.js';
import { SendWait } from './send-wait.js';
import { newestStartedMs, readClock, type ClockReading } from './server-timeline.js';
import type { CrawlOptions, CrawlResources, SyncPhase, SyncProgress, SyncStatus, SyncSummary } from './sync-types.js';
import { OwnWrites } from './writer.js';
import { RecordingLinks } from './recording-links.js';

/** One space's run: construct it, call run() once; tick() reports progress while nothing arrives. */
export class SyncRun {
  private readonly now: () => Date;
  private readonly client: ApiClient;
  /** this run's writes on the file's writer (other spaces' runs may share it) */
  private readonly writer: OwnWrites;
  private readonly startedAt: Date;
  /** the listing's state (its id map is ~10 MB per 100,000 conversations: dropped after it) */
  private lister: WindowLister | null = null;
  /** what the listing stored, so that a window listed again writes only what changed */
  private readonly listedBodies = new ListedBodies();
  private listed = 0;
  private listTotal: number | null = null;
  private readonly errors: SyncErrorRecord[] = [];
  private space = '';
  private runId = 0;
  /** the details phase, once it starts: its tallies are the run's */
  private details: DetailPhase | null = null;
  /** deleted at the source as the listing showed it (the details phase counts its own) */
  private conversationsDeleted = 0;
  /** conversations whose detail answered 404, not yet written */
  private readonly deleted: DeletedConversation[] = [];
  private errorCount = 0;
  private phase: SyncPhase = 'dimensions';
  private phaseStartRequests = 0;
  private fatal: unknown = null;
  private window: SyncProgress['window'] = null;
  /** `sync --recordings`: the space's recordings, once the space is known (null: off) */
  private recordings: RecordingLinks | null = null;
  /** the most a list page has held: the served page size, for the pages still to list */
  private pageSize = 0;
  private readonly sendWait = new SendWait();
  private dimensions: DimensionCrawl | null = null;
  /** the newest started_at the listing served inside its window (null: none) */
  private newestStartedMs: number | null = null;

  constructor(
    private readonly options: CrawlOptions,
    private readonly resources: CrawlResources,
  ) {
    this.now = options.now ?? (() => new Date());
    this.client = resources.client;
    this.writer = new OwnWrites(resources.writer);
    this.startedAt = this.now();
  }

  async run(): Promise<SyncSummary> {
    // The first request proves the key before the database is touched: a 401 changes nothing.
    this.space = this.resources.space ?? (await this.client.getSpace()).slug;
    await this.resources.onSpace?.(this.space);
    const atRest = this.options.redactAtRest ?? null;
    // The server's timeline decides what was listed: its clock as its Date headers show it so far.
    const serverNow = this.client.serverClock.serverNow(this.startedAt);
    const { planned, listedNewest, runId } = await this.writer.write(async (db) => {
      // before the run's first write: a refused run leaves the file as it was
      const state = await checkAtRest(db, this.space, atRest, this.options.dbPath);
      if (state === 'clear-text') throw clearTextError(this.space, this.options.dbPath);
      const listedNewest = await getListedNewest(db, this.space);
      const planned = planWindow({
        now: serverNow,
        watermark: listedNewest,
        overlapMs: this.options.overlapMs ?? DEFAULT_OVERLAP_MS,
        since: this.options.since,
        until: this.options.until,
        full: this.options.full,
      });
      const runId = await startRun(db, this.startedAt, this.space, planned.from, planned.to, this.options.restored ?? null);
      if (state === 'turn-on' && atRest) await recordAtRest(db, this.space, this.startedAt, runId, atRest);
      return { planned, listedNewest, runId };
    });
    this.runId = runId;
    const { recordings } = this.options;
    if (recordings) this.recordings = new RecordingLinks(() => recordings(this.space, this.client, this.writer));
    let window: ListWindow = planned;
    this.window = { from: window.from?.toISOString() ?? null, to: window.to.toISOString() };

    let status: SyncStatus = 'ok';
    let gap: ListingGapSummary | null = null;
    let complete = false;
    let excess: number | null = null;
    let trusted: ShortWindow | null = null;
    try {
      await this.syncDimensions();
      this.setPhase('listing');
      const lister = (this.lister = this.newLister());
      const fromMs = window.from?.getTime() ?? null;
      let firstPage: ListedPage | undefined;
      if (endFromFirstPage({ now: serverNow, until: this.options.until })) {
        // No `to` on the first page: whatever the server holds, however its times run against
        // this machine's, is in it; the window then ends at its newest, or the server's now if later.
        firstPage = await this.listPage({ fromMs, toMs: null }, 1);
        window = { ...window, to: new Date(Math.max(this.serverNow().getTime(), newestStartedMs(firstPage.data) ?? -Infinity)) };
        this.window = { from: window.from?.toISOString() ?? null, to: window.to.toISOString() };
      }
      if (!this.aborted) complete = await lister.list({ fromMs, toMs: window.to.getTime() }, firstPage);
      this.newestStartedMs = newestStartedMs(lister.seen.values(), window.to.getTime());
      await this.commit((db) => recordRunClock(db, this.runId, { windowTo: window.to, ...this.clockReading() }));
      this.listed = lister.seen.size;
      this.listTotal = lister.total;
      this.lister = null;
      gap = await this.recordShortWindows(lister, window.advancesWatermark);
      trusted = lister.trusted;
      if (!this.aborted) {
        excess = lister.excess({ fromMs, toMs: window.to.getTime() });
        const measured = excess;
        if (measured !== null) await this.commit((db) => recordCountExcess(db, this.runId, measured));
      }
      if (complete && gap === null && !this.aborted) await this.markVanished(window, lister.seen);
      const resumeAt = nextListedNewest(listedNewest, this.newestStartedMs, this.serverNow());
      lister.seen.clear(); // 100,000 ids: memory the details phase does not need
      this.listedBodies.clear();
      // The watermark moves only over a window that added up in full.
      if (complete && gap === null && window.advancesWatermark && !this.aborted) {
        await this.commit((db) => (resumeAt ? setWatermark(db, window.to, this.space, resumeAt) : Promise.resolve()));
      }
      if (this.options.details?.kind !== 'none' && !this.aborted) {
        await (this.details = this.newDetailPhase()).fetchAll();
      }
      await this.writer.idle();
      // the recordings' downloads end with the run (a stopped run only waits for those under way)
      if (this.recordings && !this.aborted) this.setPhase('recordings');
      await this.recordings?.finish(this.aborted);
      await this.writer.idle();
      if (this.fatal) throw this.fatal;
      if (this.aborted) status = 'interrupted';
      // A listing that did not add up is never a success, whatever else happened.
      else if (this.errorCount > 0 || gap !== null || !complete) status = 'errors';
    } catch (err) {
      await this.writer.idle();
      const interrupted = this.options.signal?.aborted === true;
      const failure = interrupted ? null : err instanceof Error ? err.message : String(err);
      await this.writer
        .write((db) => finishRun(db, this.runId, this.now(), interrupted ? 'interrupted' : 'failed', this.counters(), failure))
        .catch(() => undefined);
      rememberFailedRun(err, { runId: this.runId, space: this.space, ...this.counters() });
      throw err;
    }
    const { pending, configBodiesCoerced } = await this.writer
      .write(async (db) => {
        if (this.errors.length > 0) await recordErrors(db, this.runId, this.errors.splice(0));
        await finishRun(db, this.runId, this.now(), status, this.counters(), gap?.message ?? null);
      })
      .then(() => this.countStored());
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
      detailsCoerced: c.detailsCoerced,
      detailsSetAside: c.detailsSetAside,
      conversationsDeleted: c.conversationsDeleted,
      detailsPending: pending,
      configBodiesCoerced,
      errors: c.errors,
      listingShortfall: gap ? gap.counted - gap.served : 0,
      listingGap: gap,
      serverCountExcess: excess,
      countOff: trusted && {
        from: trusted.fromMs === null ? null : iso(trusted.fromMs),
        to: iso(trusted.toMs),
        counted: trusted.counted,
        served: trusted.served,
      },
      ...this.clockReading(),
      restoredFromCopyAt: this.options.restored?.copyTakenAt.toISOString() ?? null,
      damagedFileKeptAs: this.options.restored?.damagedPath ?? null,
      seconds: (this.now().getTime() - this.startedAt.getTime()) / 1000,
    };
  }

  /** The server's now at this run's start, as its Date headers have shown its clock so far. */
  private serverNow(): Date {
    return this.client.serverClock.serverNow(this.startedAt);
  }

  /** The server's clock against this machine's, and the newest conversation it sent, as a run records them. */
  private clockReading(): ClockReading {
    return readClock(this.client.serverClock.skewMs(), this.newestStartedMs, this.serverNow());
  }

  private get aborted(): boolean {
    return this.options.signal?.aborted === true || this.fatal !== null;
  }

  private newLister(): WindowLister {
    return new WindowLister({
      fetchPage: (w, page) => this.listPage(w, page),
      onPage: () => this.report(),
      aborted: () => this.aborted,
      concurrency: this.options.concurrency ?? 32,
      // a count off for good: trusted once the space's run before found the same shortfall (count-excess.ts)
      trustShortfall: (window, counted, served, seen) =>
        this.writer.write((db) => sameShortfallAsBefore(db, { space: this.space, runId: this.runId, window, shortfall: counted - served, seen })),
    });
  }

  /** Records each window that did not add up (listing_gaps, and a sync_errors line to read); returns their span. */
  private async recordShortWindows(lister: WindowLister, nextRunRelists: boolean): Promise<ListingGapSummary | null> {
    if (this.aborted) return null;
    if (lister.short.length > 0) await this.commit((db) => recordListingGaps(db, this.runId, this.space, lister.short, this.now()));
    for (const w of lister.short) this.recordError('listing', null, new Error(describeShortWindow(w)));
    return summariseShortWindows(lister.short, nextRunRelists);
  }

  private counters(): RunCounters {
    const stats = this.client.stats;
    return {
      requests: stats.requests,
      throttled: stats.throttled,
      retries: stats.retries,
      conversationsListed: this.listedCount,
      detailsFetched: this.details?.fetched ?? 0,
      detailsCoerced: this.details?.coerced ?? 0,
      detailsSetAside: this.details?.setAside ?? 0,
      conversationsDeleted: this.conversationsDeleted + (this.details?.deletedAtSource ?? 0),
      errors: this.errorCount,
    };
  }

  /**
   * The details still missing, and the configuration bodies this run stored coerced. Read through
   * the writer: a second DuckDB instance on the file while the writer's closes corrupts it.
   */
  private countStored(): Promise<{ pending: number; configBodiesCoerced: number }> {
    return this.writer.write(async (db) => ({
      pending: await countMissingDetails(db, this.space),
      configBodiesCoerced: await countCoercedBodies(db, this.space, this.startedAt),
    }));
  }

  private setPhase(phase: SyncPhase): void {
    this.phase = phase;
    this.phaseStartRequests = this.client.stats.requests;
    this.report();
  }

  /** A write, with the run's counters in its sync_runs row (what `status` shows while the run goes on). */
  private commit(work: (db: Database) => Promise<void>): Promise<void> {
    return this.writer.write(async (db) => {
      await work(db);
      await updateRun(db, this.runId, this.counters());
    });
  }

  private report(): void {
    if (!this.options.onProgress) return;
    const stats = this.client.stats;
    const limiter = this.client.limiter.stats();
    const now = Date.now();
    this.options.onProgress({
      phase: this.phase,
      listed: this.listedCount,
      listTotal: this.lister?.total ?? this.listTotal,
      detailsDone: this.details?.done ?? 0,
      detailsTotal: this.details?.total ?? 0,
      requests: stats.requests,
      phaseRequests: stats.requests - this.phaseStartRequests,
      throttled: stats.throttled,
      errors: this.errorCount,
      startedAt: this.startedAt,
      window: this.window,
      rate: { inWindow: limiter.inWindow, budget: limiter.budget, windowMs: this.client.limiter.windowMs, leaveInMs: limiter.leaveInMs },
      requestsLeft: this.requestsLeft(limiter.inFlight),
      waiting: this.sendWait.waiting(limiter, now),
      connection: this.client.connectionTrouble,
      recordings: this.recordings?.progress() ?? null,
    });
  }

  /** Requests still to send: the Get agents due, the listing's pages not yet fetched, or the details not yet done (less those in flight). */
  private requestsLeft(inFlight: number): number | null {
    if (this.phase === 'details') return Math.max(0, (this.details?.total ?? 0) - (this.details?.done ?? 0) - inFlight);
    if (this.phase === 'dimensions') return this.dimensions?.requestsLeft(inFlight) ?? null;
    // each recording owed by earlier runs costs one Get conversation for a fresh link
    if (this.phase === 'recordings') return this.recordings?.progress()?.linksLeft ?? null;
    if (this.phase !== 'listing') return null;
    const total = this.lister?.total ?? null;
    if (total === null) return null;
    const pages = Math.ceil(Math.max(0, total - this.listedCount) / (this.pageSize || MAX_PER_PAGE));
    return Math.max(0, pages - inFlight);
  }

  tick(): void {
    if (this.phase !== 'done') this.report();
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

  /** A conversation's body as it is stored: as received, or cleaned when the run redacts at rest. */
  private atRest(body: unknown): unknown {
    return this.options.redactAtRest ? redactBody(body, this.options.redactAtRest) : body;
  }

  private newDetailPhase(): DetailPhase {
    const { client, writer, options, now, space, runId, startedAt, errors, recordings } = this;
    return new DetailPhase({
      ...{ client, writer, options, now, space, runId, startedAt, errors, recordings },
      stopped: () => this.aborted,
      counted: () => this.setPhase('details'),
      onProgress: () => this.report(),
      counters: () => this.counters(),
      recordError: (stage, id, err) => this.recordError(stage, id, err),
      fail: (err) => (this.fatal ??= err),
    });
  }

  private async syncDimensions(): Promise<void> {
    this.dimensions = new DimensionCrawl({
      client: this.client,
      space: this.space,
      now: this.now,
      commit: (work) => this.commit(work),
      recordError: (stage, err) => this.recordError(stage, null, err),
      stopped: () => this.aborted,
      onProgress: () => this.report(),
      concurrency: this.options.concurrency ?? 32,
    });
    await this.dimensions.run();
  }

  /** Fetches one page of a window (toMs null: no upper end) at the largest page size the API allows, and stores it. */
  private async listPage(window: { fromMs: number | null; toMs: number | null }, page: number): Promise<ListedPage> {
    const query: Record<string, string | number> = { page, per_page: MAX_PER_PAGE };
    if (window.toMs !== null) query.to = iso(window.toMs);
    if (window.fromMs !== null) query.from = iso(window.fromMs);
    const listedAt = this.now();
    const response = await this.client.listPage<ConversationSummary>(
      `/spaces/${encodeURIComponent(this.space)}/conversations`,
      query,
    );
    this.pageSize = Math.max(this.pageSize, response.data.length);
    const entries = this.listedBodies.unstored(response.data.map((c) => ({ id: c.id, body: JSON.stringify(this.atRest(c)) })));
    if (entries.length > 0) {
      await this.commit((db) => saveListPage(db, this.space, listedAt, entries));
      this.listedBodies.remember(entries);
    }
    return response;
  }

  private get listedCount(): number {
    return Math.max(this.listed, this.lister?.seen.size ?? 0);
  }

  /**
   * A window listed in full that no longer holds a conversation stored before: it was deleted at
   * the source. Only conversations inside the window, by the same bounds the listing was checked with.
   */
  private async markVanished(window: { from: Date | null; to: Date }, seen: ReadonlyMap<string, number>): Promise<void> {
    const fromMs = window.from?.getTime() ?? -Infinity;
    const toMs = window.to.getTime();
    await this.commit(async (db) => {
      const vanished: DeletedConversation[] = [];
      for await (const stored of storedInWindow(db, this.space, window.from, window.to)) {
        if (stored.startedMs >= fromMs && stored.startedMs <= toMs && !seen.has(stored.id)) {
          vanished.push({ id: stored.id, seenAt: this.now(), reason: 'missing_from_listing' });
        }
      }
      this.conversationsDeleted += vanished.length;
      await markDeleted(db, this.space, this.runId, vanished);
    });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
