// The words for a server whose count is off for good (sync_runs.server_count_excess), one
// vocabulary for what sync warns, status shows and check predicts. Pure.

/** What the idea is called, in sync's warning and check's finding. */
export const COUNT_OFF = "the server's count is off";

/** What such a count usually has in it. */
export const COUNT_OFF_CAUSE = 'a count with deleted or cached rows in it';

/** What sync does once it has verified the count. */
export const SERVED_IS_TRUSTED = 'what is served is trusted';

/** e.g. `counts 3 conversations more than it serves` */
export function countsMoreThanServed(excess: number): string {
  return `counts ${excess.toLocaleString('en-US')} conversation${excess === 1 ? '' : 's'} more than it serves`;
}
