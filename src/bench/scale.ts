// Crawls at scale: peak memory of a sync of N conversations from the simulator at a high limit
// (simulator and sync in separate processes: only convoduck's memory is counted), the requests it
// used against the minimum, and an incremental run after new conversations arrived.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_PER_PAGE } from '../api/types.js';
import type { CountsSnapshot } from './measure.js';
import { runSyncChild, startSimChild } from './children/procs.js';

export interface CrawlResult {
  conversations: number;
  seconds: number;
  conversationsPerSec: number;
  maxRssMb: number;
  cpuSec: number;
  requests: number;
  minimum: number;
  /** requests ÷ minimum */
  overhead: number;
  listRequests: number;
  listMinimum: number;
  throttled: number;
  status: string;
}

export interface IncrementalResult {
  added: number;
  finished: number;
  seconds: number;
  requests: number;
  minimum: number;
  listRequests: number;
  detailRequests: number;
  dimensionRequests: number;
}

export interface ScaleResult {
  crawls: CrawlResult[];
  incremental: IncrementalResult | null;
  simulatorStartSec: number[];
}

const HIGH_LIMIT = 1_000_000_000;

export async function benchScale(sizes: number[], incrementalNew: number, workDir: string, log: (s: string) => void): Promise<ScaleResult> {
  const result: ScaleResult = { crawls: [], incremental: null, simulatorStartSec: [] };
  for (const [i, n] of sizes.entries()) {
    log(`crawl: starting a simulator with ${n} conversations`);
    const sim = await startSimChild({ seed: 7 + i, conversations: n, rateLimit: HIGH_LIMIT });
    result.simulatorStartSec.push(sim.startMs / 1000);
    const dbPath = join(workDir, `crawl-${n}.duckdb`);
    rmSync(dbPath, { force: true });
    rmSync(`${dbPath}.wal`, { force: true });
    try {
      log(`crawl: full sync of ${n} conversations`);
      const run = await runSyncChild({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
      const stats = await sim.command<CountsSnapshot>({ cmd: 'stats' });
      const dims = 1 + Math.ceil(sim.agents / MAX_PER_PAGE) + Math.ceil(sim.tools / MAX_PER_PAGE);
      const listMinimum = Math.ceil(sim.conversations / MAX_PER_PAGE);
      const minimum = dims + listMinimum + sim.conversations;
      result.crawls.push({
        conversations: sim.conversations,
        seconds: run.wallSec,
        conversationsPerSec: sim.conversations / run.wallSec,
        maxRssMb: run.maxRssMb,
        cpuSec: run.userCpuSec + run.systemCpuSec,
        requests: stats.own,
        minimum,
        overhead: stats.own / minimum,
        listRequests: stats.byKind.conversation_list ?? 0,
        listMinimum,
        throttled: stats.ownThrottled,
        status: run.summary.status,
      });
      log(`crawl: ${n} in ${run.wallSec.toFixed(1)} s, peak RSS ${run.maxRssMb.toFixed(0)} MB, ${stats.own} requests`);

      if (i === 0 && incrementalNew > 0) {
        await sim.command({ cmd: 'reset' });
        const added = await sim.command<{ added: number; finished: number }>({ cmd: 'add', n: incrementalNew });
        log(`crawl: incremental sync after ${added.added} new and ${added.finished} finished conversations`);
        const inc = await runSyncChild({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
        const s = await sim.command<CountsSnapshot>({ cmd: 'stats' });
        const changed = added.added + added.finished;
        result.incremental = {
          added: added.added,
          finished: added.finished,
          seconds: inc.wallSec,
          requests: s.own,
          minimum: dims + Math.ceil(changed / MAX_PER_PAGE) + changed,
          listRequests: s.byKind.conversation_list ?? 0,
          detailRequests: s.byKind.conversation_detail ?? 0,
          dimensionRequests: (s.byKind.spaces ?? 0) + (s.byKind.agents ?? 0) + (s.byKind.tools ?? 0),
        };
      }
    } finally {
      await sim.close();
      rmSync(dbPath, { force: true });
      rmSync(`${dbPath}.wal`, { force: true });
    }
  }
  return result;
}
