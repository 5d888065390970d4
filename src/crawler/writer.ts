// Serialises the crawl's writes. The file is opened only while there is something to write,
// then closed, so `query` and `report` can read between batches; jobs that queue up while a
// write runs share the next opening, and the details flushes among them share its transactions.

import { CHECKPOINT_MEMORY_LIMIT, Database, RAISED_MEMORY_LIMIT, WRITER_MEMORY_LIMIT } from '../store/database.js';
import { oneLineError } from '../shared/errors.js';
import { setAsideUnstorable } from '../store/normalise.js';
import { detailBytes, saveDetailBatches, type DetailBatch, type FetchedDetail } from '../store/writes.js';
import { HeldSlots } from './batches.js';

/**
 * How much one opening of the file takes from the queue: up to this many jobs, and details
 * flushes up to DETAILS_PER_OPENING details. DuckDB's memory is capped (WRITER_MEMORY_LIMIT), so
 * what bounds an opening is how long readers wait for the file. Opening, checkpointing and
 * closing cost the same whatever the opening holds: with many keys each flushing a few details,
 * openings of a few jobs each would keep the writer busy with little else.
 */
const JOBS_PER_OPENING = 64;
const DETAILS_PER_OPENING = 1_000;

/**
 * Details per transaction: each transaction's rows stay in DuckDB's memory until it commits, and
 * a few times more than this runs out of memory under the writer's cap.
 */
const DETAILS_PER_TRANSACTION = 150;

/**
 * Body text per transaction, and per crawl's batch (DETAIL_BYTES_PER_BATCH): what a write holds
 * grows with its bodies, not their count, and one long conversation weighs a thousand short ones.
 * A write that still fails is split (see saveFlush), so these size the common case only.
 */
const DETAIL_BYTES_PER_TRANSACTION = 2_000_000;
export const DETAIL_BYTES_PER_BATCH = 1_000_000;
/** Body text one crawl holds fetched and not yet written, at most (see inBatches). */
export const DETAIL_BYTES_HELD = 4_000_000;

/**
 * Details fetched and not yet written, across every crawl feeding this writer. One crawl holds at
 * most its workers' and two batches' worth, but many keys each fetching a minute's budget at the
 * top of the minute fetch faster than the one writer stores, and the bodies would pile up in
 * memory. Capped, the later fetches wait for the writes instead.
 */
const DETAILS_HELD = 1_000;

type Done = (err: unknown, value?: unknown) => void;

/** What a details flush became: the usable details that could not be stored as rows and were set aside as they were written. */
export interface WrittenDetails {
  setAside: { id: string; coerced: boolean }[];
}
type Job =
  | { kind: 'work'; work: (db: Database) => Promise<unknown>; done: Done }
  | { kind: 'details'; batch: DetailBatch; done: Done };

export class BatchWriter {
  /** the cap on details held for this writer (crawls take a slot before each detail they fetch) */
  readonly slots = new HeldSlots(DETAILS_HELD);
  private queue: Job[] = [];
  private draining: Promise<void> | null = null;

  private readonly checkpointMemoryLimit: string;
  private readonly writeMemoryLimit: string;
  private readonly raisedMemoryLimit: string;

  /**
   * `memoryLimits`: what DuckDB may hold while it writes (WRITER_MEMORY_LIMIT), checkpoints
   * (CHECKPOINT_MEMORY_LIMIT), and writes again what failed under the first (RAISED_MEMORY_LIMIT)
   */
  constructor(
    private readonly dbPath: string,
    memoryLimits: { write?: string; checkpoint?: string; raised?: string } = {},
  ) {
    this.writeMemoryLimit = memoryLimits.write ?? WRITER_MEMORY_LIMIT;
    this.checkpointMemoryLimit = memoryLimits.checkpoint ?? CHECKPOINT_MEMORY_LIMIT;
    this.raisedMemoryLimit = memoryLimits.raised ?? RAISED_MEMORY_LIMIT;
  }

  /** Runs `work` in the next opening of the file, after every write queued before it; resolves with its result. */
  write<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ kind: 'work', work, done: (err, value) => (err === undefined ? resolve(value as T) : reject(err)) });
    });
  }

  /**
   * Stores a flush of details (saveDetails): in the next opening, in a transaction shared with the
   * other flushes queued by then (see saveFlushes), placed where the first of them was queued. (A crawl queues its
   * next write only once its flush is done, so no crawl sees its own writes reordered.)
   */
  writeDetails(batch: DetailBatch): Promise<WrittenDetails> {
    return new Promise<WrittenDetails>((resolve, reject) => {
      this.enqueue({
        kind: 'details',
        batch,
        done: (err, value) => (err === undefined ? resolve((value as WrittenDetails | undefined) ?? { setAside: [] }) : reject(err)),
      });
    });
  }

  /** Resolves when every queued write has been committed (or has failed). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    this.kick();
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
      // a job queued after the drain's last look at the queue, before `draining` was cleared
      if (this.queue.length > 0) this.kick();
    });
  }

  private take(): Job[] {
    let details = 0;
    let n = 0;
    while (n < this.queue.length && n < JOBS_PER_OPENING) {
      const job = this.queue[n]!;
      if (job.kind === 'details') {
        if (details > 0 && details + job.batch.details.length > DETAILS_PER_OPENING) break;
        details += job.batch.details.length;
      }
      n++;
    }
    return this.queue.splice(0, Math.max(1, n));
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const jobs = this.take();
      const opening = new Opening(this.dbPath, this.writeMemoryLimit, this.raisedMemoryLimit);
      try {
        await opening.db();
      } catch (err) {
        for (const job of jobs) job.done(err);
        continue;
      }
      let checkpointed = false;
      try {
        const flushes = jobs.filter((j): j is Extract<Job, { kind: 'details' }> => j.kind === 'details');
        for (const job of jobs) {
          if (job.kind === 'work') await run(job, () => workWithFallback(opening, job.work));
          else if (job === flushes[0]) await this.saveFlushes(opening, flushes);
        }
        // Closing checkpoints the file, and close() is synchronous: on a large database that would
        // hold the event loop while requests in flight wait. Checkpointing first runs the same work
        // on DuckDB's threads; the close then has nothing left to write.
        const db = await opening.db();
        checkpointed = await db.checkpoint(this.checkpointMemoryLimit).then(
          () => true,
          () => false,
        );
      } catch {
        checkpointed = false;
      } finally {
        opening.close();
      }
      if (!checkpointed) await this.checkpointAgain();
    }
  }

  /**
   * A checkpoint that failed under the cap leaves its commits in the WAL (DuckDB drops the
   * instance): a fresh opening under the writers' cap replays them and writes them into the file,
   * so the file is whole again, copyable alone. Should that fail too, the next opening replays them.
   */
  private async checkpointAgain(): Promise<void> {
    for (const memoryLimit of [this.writeMemoryLimit, this.raisedMemoryLimit]) {
      const done = await Database.with(this.dbPath, (db) => db.run('CHECKPOINT'), { memoryLimit }).then(
        () => true,
        () => false,
      );
      if (done) return;
    }
  }

  /**
   * The flushes in transactions of up to DETAILS_PER_TRANSACTION details; when one fails, each of
   * its flushes in its own (one bad flush fails only its own crawl).
   */
  private async saveFlushes(opening: Opening, flushes: Extract<Job, { kind: 'details' }>[]): Promise<void> {
    for (const group of transactions(flushes)) {
      if (group.length > 1) {
        try {
          await saveDetailBatches(
            await opening.db(),
            group.map((f) => f.batch),
          );
          for (const f of group) f.done(undefined);
          continue;
        } catch {
          await opening.recover();
        }
      }
      for (const f of group) await run(f, () => saveFlush(opening, f.batch));
    }
  }
}

/**
 * A write job under the writer's cap, or, when it fails (DuckDB's cap met by what it holds), once
 * more under a raised cap. Each job is one transaction or idempotent, so trying it again is safe.
 */
async function workWithFallback<T>(opening: Opening, work: (db: Database) => Promise<T>): Promise<T> {
  try {
    return await work(await opening.db());
  } catch (err) {
    if (!isMemoryError(err)) throw err;
    await opening.recover();
  }
  const db = await opening.db();
  return db.withMemoryLimit(opening.raisedMemoryLimit, () => work(db));
}

/**
 * One flush, whatever its details hold. A write that fails (DuckDB's memory cap met by what the
 * bodies hold) is split in halves and retried, down to one detail; one detail that still fails is
 * written under a raised cap, and failing that, set aside with the reason (its raw body kept).
 * The flush's errors, deletions and counters go with its first part.
 */
async function saveFlush(opening: Opening, batch: DetailBatch): Promise<WrittenDetails> {
  try {
    await saveDetailBatches(await opening.db(), [batch]);
    return { setAside: [] };
  } catch (err) {
    await opening.recover();
    if (batch.details.length <= 1) {
      const detail = batch.details[0];
      if (!detail) throw err;
      const wasUsable = detail.normalised.usable ? { id: detail.id, coerced: detail.normalised.coerced } : null;
      return { setAside: (await saveAlone(opening, batch, detail, err)) && wasUsable ? [wasUsable] : [] };
    }
  }
  const half = Math.ceil(batch.details.length / 2);
  const first = await saveFlush(opening, { ...batch, details: batch.details.slice(0, half) });
  const second = await saveFlush(opening, { ...batch, details: batch.details.slice(half), errors: [], deleted: [] });
  return { setAside: [...first.setAside, ...second.setAside] };
}

/** Said of a detail set aside whose raw body could not be written either (rebuild keeps the reason of an empty body). */
const UNKEPT = 'its raw body did not fit either: not kept';

/** Writes one detail under the raised cap, or sets it aside; whether it was set aside here. */
async function saveAlone(opening: Opening, batch: DetailBatch, detail: FetchedDetail, failure: unknown): Promise<boolean> {
  let raised: unknown;
  try {
    const db = await opening.db();
    await db.withMemoryLimit(opening.raisedMemoryLimit, () => saveDetailBatches(db, [batch]));
    return false;
  } catch (err) {
    raised = err;
    await opening.recover();
  }
  const message = (e: unknown): string => oneLineError(e instanceof Error ? e.message : String(e));
  const reason = `could not be stored: ${message(failure)}; under a raised cap (${opening.raisedMemoryLimit}): ${message(raised)}`;
  const setAsideAs = async (kept: FetchedDetail): Promise<void> => {
    const db = await opening.db();
    await db.withMemoryLimit(opening.raisedMemoryLimit, () => saveDetailBatches(db, [{ ...batch, details: [kept] }]));
  };
  try {
    await setAsideAs({ ...detail, normalised: setAsideUnstorable(reason, detail.normalised.recordingLink) });
  } catch {
    // even its raw body does not fit: the reason alone, as for a body over the size limit
    await opening.recover();
    await setAsideAs({ ...detail, body: '', normalised: setAsideUnstorable(`${reason}; ${UNKEPT}`, detail.normalised.recordingLink) });
  }
  return detail.normalised.usable;
}

/**
 * The writer's database for one opening of the file. A write that failed may have left DuckDB's
 * instance invalidated (a commit that failed under the cap does): `recover` closes it, and the
 * next write opens the file again, which replays what was committed.
 */
class Opening {
  private current: Database | null = null;

  constructor(
    private readonly dbPath: string,
    private readonly memoryLimit: string,
    readonly raisedMemoryLimit: string,
  ) {}

  async db(): Promise<Database> {
    this.current ??= await Database.open(this.dbPath, { memoryLimit: this.memoryLimit }).catch((err: unknown) => {
      if (!isMemoryError(err)) throw err;
      return Database.open(this.dbPath, { memoryLimit: this.raisedMemoryLimit });
    });
    return this.current;
  }

  async recover(): Promise<void> {
    this.close();
  }

  close(): void {
    this.current?.close();
    this.current = null;
  }
}

/** Consecutive flushes grouped up to DETAILS_PER_TRANSACTION details and DETAIL_BYTES_PER_TRANSACTION (a larger flush alone). */
function transactions<F extends { batch: DetailBatch }>(flushes: F[]): F[][] {
  const groups: F[][] = [];
  let size = Infinity;
  let bytes = Infinity;
  for (const f of flushes) {
    const n = f.batch.details.length;
    const b = detailBytes(f.batch.details);
    if (size + n > DETAILS_PER_TRANSACTION || bytes + b > DETAIL_BYTES_PER_TRANSACTION) {
      groups.push([]);
      size = 0;
      bytes = 0;
    }
    groups.at(-1)!.push(f);
    size += n;
    bytes += b;
  }
  return groups;
}

async function run(job: Job, work: () => Promise<unknown>): Promise<void> {
  try {
    job.done(undefined, await work());
  } catch (err) {
    job.done(err);
  }
}

/**
 * One crawl's writes on a writer other crawls may share: `idle` waits for this crawl's own writes,
 * not for the others' (which may never pause while several spaces are crawled at once).
 */
export class OwnWrites {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly writer: BatchWriter) {}

  get slots(): HeldSlots {
    return this.writer.slots;
  }

  write<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return this.track(this.writer.write(work));
  }

  writeDetails(batch: DetailBatch): Promise<WrittenDetails> {
    return this.track(this.writer.writeDetails(batch));
  }

  /** Resolves when every write made through this view has been committed (or has failed). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private track<T>(job: Promise<T>): Promise<T> {
    const settled = job.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return job;
  }
}

/** DuckDB ran out of the memory its cap allows (a statement, a commit, or an opening). */
function isMemoryError(err: unknown): boolean {
  return /Out of Memory|failed to pin block|could not allocate/i.test(err instanceof Error ? err.message : String(err));
}
