// The space's configuration, crawled at the start of every run: the agents, tools and connections
// lists (a few requests), and Get agent (behavior, workflow) only for an agent that is new or whose
// list entry names another version than the one stored. A run in which no agent changed spends no
// request on Get agent; a Get agent that fails is asked again by the next run.

import { ApiClient, AuthError } from '../api/client.js';
import type { Database } from '../store/database.js';
import { agentsToFetch, saveSpaceConfig, type AgentDetailResponse, type ListedRecord } from '../store/space-config.js';
import { inBatches } from './batches.js';
import { nestsTooDeep } from './validate.js';

export interface DimensionCrawlContext {
  client: ApiClient;
  space: string;
  now: () => Date;
  /** runs `work` in a committed write (the run's counters go with it) */
  commit: (work: (db: Database) => Promise<void>) => Promise<void>;
  /** an error of this run (sync_errors, stage `agent`); the run goes on */
  recordError: (stage: string, err: unknown) => void;
  stopped: () => boolean;
  /** after each Get agent */
  onProgress: () => void;
  /** requests in flight at once */
  concurrency: number;
}

/** Get agent responses per committed batch, and how long one may wait for its commit. */
const BATCH_SIZE = 50;
const FLUSH_INTERVAL_MS = 2_000;

export class DimensionCrawl {
  /** Get agent requests this run makes (null until the lists are read) */
  private due: number | null = null;
  private done = 0;

  constructor(private readonly ctx: DimensionCrawlContext) {}

  /** Get agent requests still to send, less those in flight (null while the lists are read). */
  requestsLeft(inFlight: number): number | null {
    return this.due === null ? null : Math.max(0, this.due - this.done - inFlight);
  }

  async run(): Promise<void> {
    const base = `/spaces/${encodeURIComponent(this.ctx.space)}`;
    // three independent lists: at the API's latency, one after another would cost two round trips more
    const [agents, tools, connections] = await Promise.all([
      this.list(`${base}/agents`),
      this.list(`${base}/tools`),
      this.list(`${base}/connections`),
    ]);
    const fetchedAt = this.ctx.now();

    let ids: string[] = [];
    await this.ctx.commit(async (db) => {
      ids = await agentsToFetch(db, agents);
    });
    this.due = ids.length;
    this.ctx.onProgress();

    let saved = false;
    let fatal: unknown = null;
    await inBatches(ids, {
      concurrency: this.ctx.concurrency,
      batchSize: BATCH_SIZE,
      flushIntervalMs: FLUSH_INTERVAL_MS,
      stopped: () => this.ctx.stopped() || fatal !== null,
      work: async (id) => {
        try {
          return await this.fetchAgent(id);
        } catch (err) {
          fatal ??= err;
          return null;
        }
      },
      // The lists go with every batch (a few hundred rows), so the first commit stores them even
      // when no agent is due, and a run stopped halfway keeps what it fetched.
      flush: async (details) => {
        await this.ctx.commit((db) => saveSpaceConfig(db, { space: this.ctx.space, fetchedAt, agents, tools, connections, details }));
        saved = true;
      },
      mustFlush: () => !saved && fatal === null,
      done: () => {
        this.done++;
        this.ctx.onProgress();
      },
    });
    if (fatal !== null) throw fatal;
  }

  private async list(path: string): Promise<ListedRecord[]> {
    const records: ListedRecord[] = [];
    for await (const item of this.ctx.client.listAll<{ id?: unknown }>(path, {})) {
      if (typeof item?.id === 'string') records.push({ id: item.id, body: JSON.stringify(item) });
    }
    return records;
  }

  /** One Get agent, checked; null when it failed (recorded) or the run is being stopped. Throws only a refused key. */
  private async fetchAgent(id: string): Promise<AgentDetailResponse | null> {
    try {
      const { json, text } = await this.ctx.client.getAgent(this.ctx.space, id);
      const problem = agentProblem(json, id);
      if (problem) {
        this.ctx.recordError('agent', new Error(`agent ${id}: unusable Get agent response: ${problem}`));
        return null;
      }
      return { agentId: id, fetchedAt: this.ctx.now(), body: text };
    } catch (err) {
      if (this.ctx.stopped()) return null;
      if (err instanceof AuthError) throw err;
      this.ctx.recordError('agent', err);
      return null;
    }
  }
}

/** Why a Get agent body cannot be stored as agent `id`'s version, or null when it can. */
export function agentProblem(body: unknown, id: string): string | null {
  if (nestsTooDeep(body)) return 'it nests too deeply to store';
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return 'body has no `data` object';
  const got = (data as { id?: unknown }).id;
  if (typeof got !== 'string' || got.toLowerCase() !== id.toLowerCase()) return `data.id is ${JSON.stringify(got)}, expected ${id}`;
  return null;
}
