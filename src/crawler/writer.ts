// Serialises the crawl's writes. The file is opened only while there is something to write,
// then closed, so `query` and `report` can read between batches; jobs that queue up while a
// write runs share the next opening (up to JOBS_PER_OPENING).

import { Database, WRITER_MEMORY_LIMIT } from '../store/database.js';

/**
 * How many queued writes one opening of the file takes. Each write leaves ~15 MB of DuckDB memory
 * that only closing the instance gives back, so an opening that took the whole queue (hundreds of
 * batches when fetching outpaces writing) held 200 MB more at 30,000 conversations. Measured at
 * 30,000 conversations and no rate limit: 4 → 279 MB peak in 62 s; 8 → 306 MB in 48 s.
 */
const JOBS_PER_OPENING = 4;

type Job = { work: (db: Database) => Promise<unknown>; done: (err: unknown, value?: unknown) => void };

export class BatchWriter {
  private queue: Job[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly dbPath: string) {}

  /** Runs `work` in the next opening of the file, after every write queued before it; resolves with its result. */
  write<T>(work: (db: Database) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, done: (err, value) => (err === undefined ? resolve(value as T) : reject(err)) });
      this.draining ??= this.drain().finally(() => {
        this.draining = null;
      });
    });
  }

  /** Resolves when every queued write has been committed (or has failed). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const jobs = this.queue.splice(0, JOBS_PER_OPENING);
      let db: Database;
      try {
        db = await Database.open(this.dbPath, { memoryLimit: WRITER_MEMORY_LIMIT });
      } catch (err) {
        for (const job of jobs) job.done(err);
        continue;
      }
      try {
        for (const job of jobs) {
          try {
            job.done(undefined, await job.work(db));
          } catch (err) {
            job.done(err);
          }
        }
        // Closing checkpoints the file, and close() is synchronous: on a large database that held
        // the event loop for ~0.5 s per batch (requests in flight stalled). Checkpointing first
        // runs the same work on DuckDB's threads; the close then has nothing left to write.
        await db.run('CHECKPOINT').catch(() => undefined);
      } finally {
        db.close();
      }
    }
  }
}

/**
 * One crawl's writes on a writer other crawls may share: `idle` waits for this crawl's own writes,
 * not for the others' (which may never pause while several spaces are crawled at once).
 */
export class OwnWrites {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly writer: BatchWriter) {}

  write<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const job = this.writer.write(work);
    const settled = job.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return job;
  }

  /** Resolves when every write made through this view has been committed (or has failed). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
