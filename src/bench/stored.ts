// Memory as the database grows: peak RSS of a sync that adds new conversations to a database
// already holding N (generated in SQL, see scale-data.ts: crawling a million would take hours),
// flat out against a simulator in its own process.

import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../store/database.js';
import { generateScaleData } from './scale-data.js';
import { runSyncChild, startSimChild } from './children/procs.js';

export interface StoredResult {
  /** conversations in the database before the sync */
  stored: number;
  generateSec: number;
  dbMb: number;
  /** conversations the sync listed and fetched */
  added: number;
  maxRssMb: number;
  seconds: number;
  cpuSec: number;
  /** details stored per second of the sync's wall time */
  detailsPerSec: number;
  status: string;
}

const HIGH_LIMIT = 1_000_000_000;

export async function benchStored(sizes: number[], added: number, workDir: string, log: (s: string) => void): Promise<StoredResult[]> {
  const results: StoredResult[] = [];
  const sim = await startSimChild({ seed: 23, conversations: added, rateLimit: HIGH_LIMIT });
  try {
    for (const n of sizes) {
      const dbPath = join(workDir, `stored-${n}.duckdb`);
      const remove = (): void => {
        for (const p of [dbPath, `${dbPath}.wal`]) rmSync(p, { force: true });
      };
      remove();
      try {
        log(`stored: generating ${n} conversations of space ${sim.space} in DuckDB`);
        const t = performance.now();
        await Database.with(dbPath, (db) => generateScaleData(db, n, { space: sim.space, listed: true }));
        const generateSec = (performance.now() - t) / 1000;
        const dbMb = statSync(dbPath).size / 1e6;
        log(`stored: a sync adding ${sim.conversations} conversations to ${n}`);
        const run = await runSyncChild({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
        results.push({
          stored: n,
          generateSec,
          dbMb,
          added: run.summary.detailsFetched,
          maxRssMb: run.maxRssMb,
          seconds: run.wallSec,
          cpuSec: run.userCpuSec + run.systemCpuSec,
          detailsPerSec: run.summary.detailsFetched / run.wallSec,
          status: run.summary.status,
        });
        log(`stored: ${n} + ${run.summary.detailsFetched} in ${run.wallSec.toFixed(1)} s, peak RSS ${run.maxRssMb.toFixed(0)} MB`);
      } finally {
        remove();
      }
    }
  } finally {
    await sim.close();
  }
  return results;
}
