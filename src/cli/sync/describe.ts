// What `sync` says when a run ends, for one space and for many: the summary lines, the listing
// gap's line, the one-line problem of a run that was not ok, and its flags.

import type { ListingGapSummary, SyncSummary } from '../../crawler/sync.js';
import { holderName, SyncLockedError } from '../../store/sync-lock.js';
import { CliError, EXIT, toCliError } from '../errors.js';
import type { RunFlags } from './flags.js';
import { formatDuration } from './progress.js';
import { COUNT_OFF, COUNT_OFF_CAUSE } from '../../shared/count-off.js';
import type { Restored } from '../../store/restore-last-good.js';

export interface SyncFlags extends RunFlags {
  db?: string;
  /** --db-dir DIR: one file per space */
  dbDir?: string;
  shardCount?: string;
  shardIndex?: string;
  /** --recordings DIR */
  recordings?: string;
  /** --recordings-bandwidth RATE */
  recordingsBandwidth?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  config?: string;
  space?: string[];
  json?: boolean;
}

/** The reason a finished run was not ok, as its one line; null when it was. */
export function problemOf(summary: SyncSummary): string | null {
  if (summary.status === 'ok') return null;
  if (summary.status === 'interrupted') return 'sync interrupted: what was fetched is kept; run sync again to resume';
  if (summary.listingGap) return describeListingGap(summary.listingGap).replace(/^convoduck: /, '');
  return `${summary.errors} errors recorded in sync_errors — the next run retries them`;
}

/** convoduck's own errors as everywhere; anything else ended the run, and what was fetched is kept. */
export function runErrorOf(err: unknown): CliError {
  if (err instanceof SyncLockedError) return new CliError(describeSkipped(err), EXIT.busy);
  const known = toCliError(err);
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(`sync failed: ${message.split('\n')[0]} (what was fetched is kept; run sync again to resume)`, EXIT.failed);
}

/** Why this sync left the database alone, and what comes next. */
export function describeSkipped(err: SyncLockedError): string {
  const waited = err.waitedMs > 0 ? ` (still after waiting ${formatDuration(err.waitedMs / 1000)})` : '';
  return (
    `another convoduck sync (${holderName(err.pid, err.host)}) is already writing this database${waited}: this run is skipped, ` +
    `the database left to it (--wait DURATION waits for it; if no such process exists, delete ${err.lockPath})`
  );
}

/** The one line that says which window is short, by how many, and what happens next. */
export function describeListingGap(gap: ListingGapSummary): string {
  const next = gap.nextRunRelists
    ? 'the watermark stays; the next run lists this window again'
    : 'a bounded backfill moves no watermark: run it again to list this window';
  return `convoduck: ${gap.message} — ${next}`;
}

/**
 * The one warning line of a server whose count is off for good (null when it added up, or the
 * window was reported short instead): what it counts and serves where, and why it is trusted.
 */
export function describeCountOff(s: Pick<SyncSummary, 'countOff' | 'space'>): string | null {
  const off = s.countOff;
  if (!off) return null;
  const bound = (t: string | null) => (t === null ? 'beginning' : t.replace('.000Z', 'Z'));
  const more = off.counted - off.served;
  return (
    `convoduck: space ${s.space}: ${COUNT_OFF}: it counts ${off.counted} conversations in ${bound(off.from)}..${bound(off.to)}, ` +
    `${off.served} ${off.served === 1 ? 'was' : 'were'} served — ${more} more than served, as in the space's run before, and every conversation ` +
    `stored there was served again: what was served is trusted (${COUNT_OFF_CAUSE})`
  );
}

/** What the run did with data it did not expect, in one line (null when nothing). */
export function describeUnexpectedData(
  s: Pick<SyncSummary, 'detailsCoerced' | 'configBodiesCoerced' | 'detailsSetAside' | 'conversationsDeleted'>,
): string | null {
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (s.detailsCoerced > 0) parts.push(`${n(s.detailsCoerced, 'detail', 'details')} stored with values coerced`);
  if (s.configBodiesCoerced > 0) {
    parts.push(`${n(s.configBodiesCoerced, 'configuration body', 'configuration bodies')} stored with values coerced (see the api_drift report)`);
  }
  if (s.detailsSetAside > 0) parts.push(`${n(s.detailsSetAside, 'detail', 'details')} set aside (raw body kept; see the api_drift report)`);
  if (s.conversationsDeleted > 0) parts.push(`${n(s.conversationsDeleted, 'conversation', 'conversations')} deleted at the source`);
  return parts.length === 0 ? null : parts.join(', ');
}

/** Beyond this (seconds) a skew is said: the Date header's own precision and a slow response stay below it. */
export const SKEW_WARN_SECONDS = 60;

/**
 * The one warning line of a server whose clock disagrees with this machine's by more than a minute,
 * or whose newest conversation starts more than a minute after its own clock's now; null otherwise.
 */
export function describeClock(s: Pick<SyncSummary, 'clockSkewSeconds' | 'newestStartedAt' | 'newestAheadSeconds' | 'space'>): string | null {
  const parts: string[] = [];
  const skew = s.clockSkewSeconds;
  if (skew !== null && Math.abs(skew) > SKEW_WARN_SECONDS) {
    parts.push(`the server's clock (its Date header) runs ${formatDuration(Math.abs(skew))} ${skew < 0 ? 'behind' : 'ahead of'} this machine's`);
  }
  const ahead = s.newestAheadSeconds;
  if (ahead !== null && ahead > SKEW_WARN_SECONDS) {
    parts.push(`its newest conversation (${s.newestStartedAt}) starts ${formatDuration(ahead)} after the server's own now`);
  }
  if (parts.length === 0) return null;
  return `convoduck: space ${s.space}: ${parts.join('; ')} — listing follows the server's times, nothing is lost; set the server's clock right`;
}

export function describeSummary(s: SyncSummary, dbPath: string): string {
  const lines = [
    `sync ${s.status === 'ok' ? 'done' : s.status} in ${formatDuration(s.seconds)} → ${dbPath}`,
    `  space ${s.space}, window ${s.windowFrom ?? 'beginning'} .. ${s.windowTo}`,
    `  ${s.conversationsListed} conversations listed, ${s.detailsFetched} details stored, ${s.detailsPending} pending (no detail stored yet)`,
    `  ${s.requests} requests, ${s.throttled} throttled, ${s.retries} retried, ${s.errors} errors`,
  ];
  const unexpected = describeUnexpectedData(s);
  if (unexpected) lines.push(`  ${unexpected}`);
  if (s.errors > 0) lines.push('  errors are in the sync_errors table (convoduck status); the next run retries them');
  return lines.join('\n');
}

/**
 * The warning a sync gives when it found its file damaged and put the last-good copy in its
 * place: what, where, and how much is fetched again (what came after the copy).
 */
export function describeRestored(r: Restored): string {
  const at = r.copyTakenAt.toISOString().replace(/\.\d+Z$/, 'Z');
  const wal = r.walsKept.length > 0 ? ` (its WAL beside it)` : '';
  return (
    `convoduck: warning: ${r.path} is damaged and does not open (${r.error}); restored from its last-good copy of ${at} — ` +
    `this sync fetches again what came after the copy; the damaged file is kept as ${r.damagedPath}${wal}, nothing was deleted`
  );
}
