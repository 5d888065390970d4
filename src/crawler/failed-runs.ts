// What a run that ended in an exception had done: its counters, kept beside the error (a run
// that throws returns no summary) so that `sync --json` can still say them.

import type { RunCounters } from '../store/sync-runs.js';

/** What a run that ended in an exception had done (its sync_runs row says the same). */
export interface FailedRunCounters extends RunCounters {
  runId: number;
  space: string;
}

const failedRuns = new WeakMap<object, FailedRunCounters>();

/** Keeps the counters of the run `err` ended, for countersOfFailedRun. */
export function rememberFailedRun(err: unknown, counters: FailedRunCounters): void {
  if (typeof err === 'object' && err !== null) failedRuns.set(err, counters);
}

/** The counters of the run that `err` ended, once the run had started (a refused key ends none). */
export function countersOfFailedRun(err: unknown): FailedRunCounters | undefined {
  return typeof err === 'object' && err !== null ? failedRuns.get(err) : undefined;
}
