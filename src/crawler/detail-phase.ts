// The details phase of a sync run: every conversation listed but not yet fetched, in plans of a
// chunk each, fetched concurrently and written batch by batch with the run's counters. The run
// (sync-run.ts) owns the errors and the counters it records; this phase keeps its own tallies.

import { AuthError, NotFoundError, type ApiClient } from '../api/client.js';
import { countPendingDetails, pendingDetails, PLAN_CHUNK, type PendingDetails } from '../store/pending-details.js';
import type { RunCounters, SyncErrorRecord } from '../store/sync-runs.js';
import { fetchedDetail, type DeletedConversation, type FetchedDetail, type StoredAt } from '../store/writes.js';
import { redactBody } from '../redact/index.js';
import { inBatches } from './batches.js';
import type { RecordingLinks } from './recording-links.js';
import type { CrawlOptions } from './sync-types.js';
import { unreadableBody } from './unreadable-body.js';
import { DETAIL_BYTES_HELD, DETAIL_BYTES_PER_BATCH, type OwnWrites } from './writer.js';

/** What the phase reads from, and reports to, the run it belongs to. */
export interface DetailRun {
  client: ApiClient;
  writer: OwnWrites;
  options: CrawlOptions;
  now: () => Date;
  space: string;
  runId: number;
  startedAt: Date;
  /** the run's errors not yet written: each batch writes them with its details */
  errors: SyncErrorRecord[];
  stopped(): boolean;
  /** the total is known: the run switches its phase (so progress never shows "0/0") */
  counted(): void;
  onProgress(): void;
  counters(): RunCounters;
  recordError(stage: string, conversationId: string | null, err: unknown): void;
  /** an error that ends the run (a key refused mid-run) */
  fail(err: unknown): void;
  /** the recording links of the details (null: recordings off) */
  recordings: RecordingLinks | null;
}

export class DetailPhase {
  done = 0;
  total = 0;
  /** usable details handed to the writer (stored once it commits); coerced and setAside likewise */
  fetched = 0;
  coerced = 0;
  setAside = 0;
  /** listed, then gone at the source when its detail was asked for */
  deletedAtSource = 0;
  private readonly deleted: DeletedConversation[] = [];

  constructor(private readonly run: DetailRun) {}

  async fetchAll(): Promise<void> {
    const { options, space } = this.run;
    const firstOutcomes = options.details?.kind === 'first' ? options.details.outcomes : [];
    const chunk = options.planChunk ?? PLAN_CHUNK;
    const retrySetAside = options.retrySetAside === true;
    this.total = await this.run.writer.write((db) => countPendingDetails(db, space, retrySetAside));
    this.run.counted();
    // Each plan is the next chunk in order, less what this run tried: every pending id once, in
    // ceil(total / chunk) plans (no more, even if a clock going back let a tried id through).
    const tried = { runId: this.run.runId, since: this.run.startedAt };
    for (let plans = Math.ceil(this.total / chunk); plans > 0 && !this.run.stopped(); plans--) {
      const pending = await this.run.writer.write((db) => pendingDetails(db, { firstOutcomes, space, tried, limit: chunk, retrySetAside }));
      if (pending.ids.length === 0) break;
      await this.fetchPlanned(pending);
    }
  }

  private async fetchPlanned(pending: PendingDetails): Promise<void> {
    const { options, writer, errors } = this.run;
    await inBatches<string, FetchedDetail>(pending.ids, {
      concurrency: options.concurrency ?? 32,
      slots: writer.slots,
      batchSize: options.batchSize ?? 100,
      weight: { batch: DETAIL_BYTES_PER_BATCH, held: DETAIL_BYTES_HELD, weigh: (d) => d.body.length },
      flushIntervalMs: options.flushIntervalMs ?? 2_000,
      stopped: () => this.run.stopped(),
      work: (id, i) => this.fetchDetail(id, pending.storedAt(i)),
      flush: (details) => {
        // counted when handed to the writer, which commits in order: the counters written with a
        // batch are what that commit and the ones before it stored, so a killed run's row is true
        const usable = details.filter((d) => d.normalised.usable);
        this.fetched += usable.length;
        this.coerced += usable.filter((d) => d.normalised.usable && d.normalised.coerced).length;
        this.setAside += details.length - usable.length;
        const batch = { space: this.run.space, details, deleted: this.deleted.splice(0), errors: errors.splice(0), runId: this.run.runId };
        return writer.writeDetails({ ...batch, counters: this.run.counters() }).then(({ setAside }) => {
          this.run.recordings?.written(details);
          // details the writer could not store as rows: counted set aside, not fetched (finishRun records the counters)
          this.fetched -= setAside.length;
          this.coerced -= setAside.filter((d) => d.coerced).length;
          this.setAside += setAside.length;
        });
      },
      mustFlush: () => errors.length > 0 || this.deleted.length > 0,
      done: () => {
        this.done++;
        this.run.onProgress();
      },
    });
  }

  private async fetchDetail(id: string, storedAt: StoredAt): Promise<FetchedDetail | null> {
    const { client, options, now, space } = this.run;
    try {
      const { json, text, notUtf8 } = await client.getConversation(space, id);
      this.run.recordings?.note(id, json);
      if (!options.redactAtRest) return fetchedDetail(id, now(), text, storedAt, { parsed: json, notUtf8 });
      const parsed = redactBody(json, options.redactAtRest);
      return fetchedDetail(id, now(), JSON.stringify(parsed), storedAt, { parsed, notUtf8 });
    } catch (err) {
      // a request cut short by Ctrl-C is not an error of the conversation: the next run fetches it
      if (options.signal?.aborted) return null;
      if (err instanceof AuthError) {
        this.run.fail(err);
        return null;
      }
      const unreadable = unreadableBody(id, now(), storedAt, err, options.redactAtRest ?? null);
      if (unreadable) return unreadable;
      // listed, then deleted at the source: a state of the conversation, not an error of the run
      if (err instanceof NotFoundError) {
        this.deletedAtSource++;
        this.deleted.push({ id, seenAt: now(), reason: 'detail_not_found' });
        return null;
      }
      if (err instanceof Error) {
        this.run.recordError('detail', id, err);
        return null;
      }
      throw err;
    }
  }
}
