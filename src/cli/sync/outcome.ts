// The one JSON object `convoduck sync --json` prints on stdout, whatever the run's outcome (and
// what any other `--json` command prints when it fails before its own summary):
// a scheduler always has something to parse, with the exit code and the reason in it.

import type { FailedRunCounters, SyncSummary } from '../../crawler/sync.js';
import { EXIT } from '../errors.js';

export const INTERRUPTED_EXIT = 130;

export type SyncOutcomeStatus = 'ok' | 'errors' | 'interrupted' | 'failed' | 'refused' | 'usage' | 'skipped';

export type SyncOutcome = {
  status: SyncOutcomeStatus;
  exitCode: number;
  /** the one line printed on stderr; null when the run was ok */
  error: string | null;
} & (Partial<SyncSummary> | Partial<FailedRunCounters>);

/** A run that finished (ok, with recorded errors, or interrupted between requests). */
export function finishedOutcome(summary: SyncSummary, exitCode: number, error: string | null): SyncOutcome {
  return { ...summary, status: summary.status, exitCode, error };
}

/** A run that ended in an error: what is known of it (nothing but the message before it started). */
export function failedOutcome(exitCode: number, message: string, counters: FailedRunCounters | undefined): SyncOutcome {
  return { ...counters, status: statusForExit(exitCode), exitCode, error: message };
}

function statusForExit(exitCode: number): SyncOutcomeStatus {
  if (exitCode === EXIT.usage) return 'usage';
  if (exitCode === EXIT.busy) return 'skipped';
  if (exitCode === EXIT.auth) return 'refused';
  if (exitCode === INTERRUPTED_EXIT) return 'interrupted';
  return 'failed';
}

/** One line of JSON; the key is cut out wherever a message might have picked it up. */
export function renderOutcome(outcome: SyncOutcome, apiKey: string | undefined): string {
  let text = JSON.stringify(outcome);
  if (apiKey) {
    for (const form of [apiKey, JSON.stringify(apiKey).slice(1, -1)]) text = text.split(form).join('[api key]');
  }
  return text + '\n';
}
