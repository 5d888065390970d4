// Budget utilisation (and the naive client beside it): convoduck against the simulator at a given
// rate limit and latency, measured from the simulator's own request log.

import { join } from 'node:path';
import { MAX_PER_PAGE } from '../api/types.js';
import { defaultBurst, type RateAlgorithm } from '../simulator/index.js';
import { maxInRollingWindow, windowUse, type LogTuple, type WindowUse } from './measure.js';
import { runNaive, type NaiveResult } from './naive.js';
import { runSyncChild, startSimChild, type SimChild } from './children/procs.js';

export interface BudgetCase {
  key: string;
  /** how the simulator counts the limit (src/simulator/limits/rate-limits.ts) */
  algorithm: RateAlgorithm;
  /** requests per window (per minute unscaled); a bucket's refill per window */
  limit: number;
  /** a bucket's capacity (bucket only) */
  burst?: number;
  /** response latency, unscaled (ms) */
  latencyMs: number;
  /** the second client's requests per window (per minute unscaled) */
  otherPerWindow: number;
  /** the fixed amount of work: conversations, every one with its detail */
  conversations: number;
  /** the cases of one round run at once, the rounds one after another */
  round: number;
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
    /** most of our requests in any rolling window, 429s included (what we tried to send) */
    maxOwnRolling: number;
    /** most accepted requests of the key (ours and the other client's) in any rolling window */
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
  // Work sized so that convoduck needs a little over two windows at the budget left to it. Cases
  // e–h repeat c and d on the other two ways a server may count "60 a minute". They run in a
  // second round: on 2 cores, eight syncs starting at once starve each other's first window, and
  // a case's first window would measure the machine rather than the limiter.
  const bucket = { algorithm: 'bucket', burst: defaultBurst(60) } as const;
  return [
    { key: 'a', algorithm: 'rolling', limit: 600, latencyMs: 50, otherPerWindow: 0, conversations: 1350, round: 1 },
    { key: 'b', algorithm: 'rolling', limit: 600, latencyMs: 1500, otherPerWindow: 0, conversations: 1350, round: 1 },
    { key: 'c', algorithm: 'rolling', limit: 60, latencyMs: 800, otherPerWindow: 0, conversations: 130, round: 1 },
    { key: 'd', algorithm: 'rolling', limit: 60, latencyMs: 800, otherPerWindow: 15, conversations: 100, round: 1 },
    { key: 'e', algorithm: 'fixed', limit: 60, latencyMs: 800, otherPerWindow: 0, conversations: 130, round: 2 },
    { key: 'f', algorithm: 'fixed', limit: 60, latencyMs: 800, otherPerWindow: 15, conversations: 100, round: 2 },
    { key: 'g', ...bucket, limit: 60, latencyMs: 800, otherPerWindow: 0, conversations: 130, round: 2 },
    { key: 'h', ...bucket, limit: 60, latencyMs: 800, otherPerWindow: 15, conversations: 100, round: 2 },
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
 * Starts the simulators of every case, of every round (one for convoduck, one for the naive
 * client). The second client of the shared cases starts spending with them; `runBudget` waits until it has been spending for
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
          rateAlgorithm: c.algorithm,
          ...(c.burst !== undefined ? { burst: c.burst } : {}),
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

/**
 * Runs the cases round by round, every case of a round at once: separate simulators, separate
 * databases, separate processes.
 */
export async function runBudget(sims: BudgetSimulators, o: BudgetOptions): Promise<BudgetResult[]> {
  const { windowMs } = sims;
  try {
    const warm = sims.startedAt + windowMs - performance.now();
    if (warm > 0) {
      o.log(`budget: waiting ${(warm / 1000).toFixed(1)} s until the second client has spent for a whole window`);
      await new Promise((r) => setTimeout(r, warm));
    }
    const rounds = [...new Set(sims.started.map((s) => s.c.round))].sort((a, b) => a - b);
    const results: BudgetResult[] = [];
    for (const [i, round] of rounds.entries()) {
      const cases = sims.started.filter((s) => s.c.round === round);
      o.log(
        `budget: round ${i + 1} of ${rounds.length}, cases ${cases.map((s) => s.c.key).join(', ')} at once (window ${windowMs / 1000} s), ` +
          `naive clients for ${o.naiveMs / 1000} s`,
      );
      results.push(...(await Promise.all(cases.map((s) => runCase(s, windowMs, o)))));
    }
    return results;
  } finally {
    await sims.close();
  }
}

async function runCase({ c, own, naive, latencyMs }: Started, windowMs: number, o: BudgetOptions): Promise<BudgetResult> {
  const [sync, naiveRun] = await Promise.all([
    runSyncChild({ baseUrl: own.baseUrl, apiKey: own.apiKey, dbPath: join(o.workDir, `budget-${c.key}.duckdb`), windowMs }),
    runNaive(naive.baseUrl, naive.apiKey, Math.round(1000 / o.scale), o.naiveMs),
  ]);
  const log = await own.command<LogTuple[]>({ cmd: 'log' });
  o.log(`budget (${c.key}): convoduck ${sync.wallSec.toFixed(1)} s, ${sync.summary.requests} requests`);
  const mine = log.filter((e) => e[1] === 0);
  const keyAccepted = log.filter((e) => e[2] !== 429).map((e) => e[0]);
  const use = windowUse(log, c.limit, c.otherPerWindow, windowMs);
  const dims = 1 + Math.ceil(own.agents / MAX_PER_PAGE) + Math.ceil(own.tools / MAX_PER_PAGE);
  const minimum = dims + Math.ceil(c.conversations / MAX_PER_PAGE) + c.conversations;
  const naiveNeeded = 1 + Math.ceil(naive.agents / 50) + Math.ceil(naive.tools / 50) + Math.ceil(c.conversations / 50) + c.conversations;
  // Its pace per accepted request: a 429 and its Retry-After wait are part of that pace.
  const naiveAccepted = naiveRun.requests - naiveRun.throttled;
  const naiveSeconds = naiveRun.finished ? naiveRun.seconds : (naiveRun.seconds / naiveAccepted) * naiveNeeded;
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
      maxKeyRolling: maxInRollingWindow(keyAccepted, windowMs),
      otherAccepted: log.filter((e) => e[1] === 1 && e[2] !== 429).length,
      otherThrottled: log.filter((e) => e[1] === 1 && e[2] === 429).length,
    },
    naive: { ...naiveRun, requestsNeeded: naiveNeeded, secondsForJob: naiveSeconds, extrapolated: !naiveRun.finished },
    timeRatio: sync.wallSec / naiveSeconds,
  } satisfies BudgetResult;
}
