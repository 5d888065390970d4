// Budget utilisation (and the naive client beside it): convoduck against the simulator at a given
// rate limit and latency, measured from the simulator's own request log.

import { join } from 'node:path';
import { MAX_PER_PAGE } from '../api/types.js';
import { maxInRollingWindow, windowUse, type LogTuple, type WindowUse } from './measure.js';
import { runNaive, type NaiveResult } from './naive.js';
import { runSyncChild, startSimChild, type SimChild } from './procs.js';

export interface BudgetCase {
  key: string;
  /** requests per window (per minute unscaled) */
  limit: number;
  /** response latency, unscaled (ms) */
  latencyMs: number;
  /** the second client's requests per window (per minute unscaled) */
  otherPerWindow: number;
  /** the fixed amount of work: conversations, every one with its detail */
  conversations: number;
}

export interface BudgetResult {
  case: BudgetCase;
  windowMs: number;
  latencyMs: number;
  convoduck: {
    seconds: number;
    requests: number;
    minimum: number;
    throttled: number;
    use: WindowUse;
    /** our requests per window in the whole windows */
    perWindow: number;
    /** most of our requests in any rolling window */
    maxOwnRolling: number;
    /** most requests of the key in any rolling window: ours (429s included) and the other client's accepted ones */
    maxKeyRolling: number;
    otherAccepted: number;
    otherThrottled: number;
  };
  naive: NaiveResult & {
    requestsNeeded: number;
    /** its time for the whole job: measured when it finished, else extrapolated at its measured pace */
    secondsForJob: number;
    extrapolated: boolean;
  };
  /** convoduck's wall time ÷ the naive client's for the same job */
  timeRatio: number;
}

export interface BudgetOptions {
  /** time scale: windows, latencies and the naive client's pause are divided by it */
  scale: number;
  /** how long the naive client runs before its time is extrapolated (real ms) */
  naiveMs: number;
  workDir: string;
  log: (line: string) => void;
}

export function budgetCases(): BudgetCase[] {
  // Work sized so that convoduck needs a little over two windows at the budget left to it.
  return [
    { key: 'a', limit: 600, latencyMs: 50, otherPerWindow: 0, conversations: 1350 },
    { key: 'b', limit: 600, latencyMs: 1500, otherPerWindow: 0, conversations: 1350 },
    { key: 'c', limit: 60, latencyMs: 800, otherPerWindow: 0, conversations: 130 },
    { key: 'd', limit: 60, latencyMs: 800, otherPerWindow: 15, conversations: 100 },
  ];
}

interface Started {
  c: BudgetCase;
  own: SimChild;
  naive: SimChild;
  latencyMs: number;
}

export interface BudgetSimulators {
  windowMs: number;
  startedAt: number;
  started: Started[];
  close(): Promise<void>;
}

/**
 * Starts the simulators of every case (one for convoduck, one for the naive client). The second
 * client of case (d) starts spending with them; `runBudget` waits until it has been spending for
 * a whole window (run another section meanwhile), as an integration that runs all the time would
 * have, so that its usage is visible to convoduck from the first response on.
 */
export async function startBudgetSimulators(cases: BudgetCase[], scale: number): Promise<BudgetSimulators> {
  const windowMs = Math.round(60_000 / scale);
  const sims: SimChild[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(sims.splice(0).map((s) => s.close()));
  };
  try {
    const started = await Promise.all(
      cases.map(async (c, i): Promise<Started> => {
        const latencyMs = Math.round(c.latencyMs / scale);
        const common = {
          seed: 100 + i,
          conversations: c.conversations,
          rateLimit: c.limit,
          windowMs,
          latency: { listMs: latencyMs, detailMs: latencyMs, otherMs: latencyMs },
          // per REAL minute
          otherClientRpm: c.otherPerWindow * scale,
        };
        const own = await startSimChild({ ...common, keepLog: true });
        sims.push(own);
        const naive = await startSimChild(common);
        sims.push(naive);
        return { c, own, naive, latencyMs };
      }),
    );
    return { windowMs, startedAt: performance.now(), started, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs every case at once: separate simulators, separate databases, separate processes. */
export async function runBudget(sims: BudgetSimulators, o: BudgetOptions): Promise<BudgetResult[]> {
  const { windowMs } = sims;
  try {
    const warm = sims.startedAt + windowMs - performance.now();
    if (warm > 0) {
      o.log(`budget: waiting ${(warm / 1000).toFixed(1)} s until the second client has spent for a whole window`);
      await new Promise((r) => setTimeout(r, warm));
    }
    o.log(`budget: ${sims.started.length} cases at once (window ${windowMs / 1000} s), naive clients for ${o.naiveMs / 1000} s`);
    return await Promise.all(
      sims.started.map(async ({ c, own, naive, latencyMs }) => {
        const [sync, naiveRun] = await Promise.all([
          runSyncChild({ baseUrl: own.baseUrl, apiKey: own.apiKey, dbPath: join(o.workDir, `budget-${c.key}.duckdb`), windowMs }),
          runNaive(naive.baseUrl, naive.apiKey, Math.round(1000 / o.scale), o.naiveMs),
        ]);
        const log = await own.command<LogTuple[]>({ cmd: 'log' });
        o.log(`budget (${c.key}): convoduck ${sync.wallSec.toFixed(1)} s, ${sync.summary.requests} requests`);
        const mine = log.filter((e) => e[1] === 0);
        // The key's requests as the server saw them: all of ours (a 429 included: it tried to go
        // over) and the other client's accepted ones.
        const keyRequests = log.filter((e) => e[1] === 0 || e[2] !== 429).map((e) => e[0]);
        const use = windowUse(log, c.limit, c.otherPerWindow, windowMs);
        const dims = 1 + Math.ceil(own.agents / MAX_PER_PAGE) + Math.ceil(own.tools / MAX_PER_PAGE);
        const minimum = dims + Math.ceil(c.conversations / MAX_PER_PAGE) + c.conversations;
        const naiveNeeded = 1 + Math.ceil(naive.agents / 50) + Math.ceil(naive.tools / 50) + Math.ceil(c.conversations / 50) + c.conversations;
        const naiveSeconds = naiveRun.finished ? naiveRun.seconds : (naiveRun.seconds / naiveRun.requests) * naiveNeeded;
        return {
          case: c,
          windowMs,
          latencyMs,
          convoduck: {
            seconds: sync.wallSec,
            requests: mine.length,
            minimum,
            throttled: mine.filter((e) => e[2] === 429).length,
            use,
            perWindow: use.own.reduce((a, b) => a + b, 0) / Math.max(1, use.windows),
            maxOwnRolling: maxInRollingWindow(
              mine.map((e) => e[0]),
              windowMs,
            ),
            maxKeyRolling: maxInRollingWindow(keyRequests, windowMs),
            otherAccepted: log.filter((e) => e[1] === 1 && e[2] !== 429).length,
            otherThrottled: log.filter((e) => e[1] === 1 && e[2] === 429).length,
          },
          naive: { ...naiveRun, requestsNeeded: naiveNeeded, secondsForJob: naiveSeconds, extrapolated: !naiveRun.finished },
          timeRatio: sync.wallSec / naiveSeconds,
        } satisfies BudgetResult;
      }),
    );
  } finally {
    await sims.close();
  }
}
