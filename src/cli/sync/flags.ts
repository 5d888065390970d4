// What `sync` reads from its flags whatever it crawls (one space or many), and how it stops on
// Ctrl-C / SIGTERM: the first signal commits what was fetched and stops, the second quits at once.

import { KNOWN_OUTCOMES } from '../../api/types.js';
import { parseDetailsMode, type DetailsMode } from '../../crawler/plan.js';
import { parseDurationArg, parseTimeArg } from '../../shared/time.js';
import { UsageError } from '../errors.js';
import { parsePositiveInt } from '../parse.js';
import { INTERRUPTED_EXIT } from './outcome.js';

export interface RunFlags {
  details: string;
  since?: string;
  until?: string;
  full?: boolean;
  retrySetAside?: boolean;
  overlap: string;
  maxRpm?: string;
  retainDays?: string;
  eraseDeleted?: boolean;
  /** --redact-at-rest / --no-redact-at-rest (resolved by config/redaction.ts) */
  redactAtRest?: boolean;
  /** how long to wait for another sync of the database to end (default: not at all) */
  wait?: string;
}

export interface RunSettings {
  details: DetailsMode;
  since: Date | undefined;
  until: Date | undefined;
  full: boolean | undefined;
  retrySetAside: boolean | undefined;
  overlapMs: number;
  maxRpm: number | undefined;
  /** how long to wait for another sync holding the database (0: skip this run at once) */
  lockWaitMs: number;
  /** the lease after which a still heartbeat of another host's sync lock frees it (CONVODUCK_LOCK_LEASE_MS; default store/sync-lock.ts) */
  lockLeaseMs: number | undefined;
  /** the rate limit's window when tests shrink it (CONVODUCK_RATE_WINDOW_MS) */
  windowMs: number | undefined;
  /** erase after the sync: conversations older than retainDays, and those deleted at the source */
  retention: { retainDays?: number; eraseDeletedAtSource?: boolean };
}

export function parseRunFlags(flags: RunFlags, now: Date): RunSettings {
  const details = parseDetailsMode(flags.details);
  // The spec's outcome set is closed: a misspelt outcome would otherwise just prioritise nothing.
  const unknown = details?.kind === 'first' ? details.outcomes.filter((o) => !(KNOWN_OUTCOMES as readonly string[]).includes(o)) : [];
  if (!details || unknown.length > 0) {
    throw new UsageError(
      `--details ${JSON.stringify(flags.details)} must be all, none, or outcomes to fetch first from ` +
        `${KNOWN_OUTCOMES.join(', ')} (e.g. failed,transferred)`,
    );
  }
  const since = flags.since ? parseTimeArg('--since', flags.since, now) : undefined;
  // --until is exclusive, as on every command; the API's `to` includes its end, so list up to the millisecond before
  const until = flags.until ? new Date(parseTimeArg('--until', flags.until, now).getTime() - 1) : undefined;
  if (since && until && since > until) throw new UsageError('--since is not before --until: --since is inclusive, --until exclusive — swap them');
  if (flags.full && since) throw new UsageError('--full and --since contradict each other: use one');
  const overlapMs = parseDurationArg('--overlap', flags.overlap);
  const maxRpm = flags.maxRpm !== undefined ? parsePositiveInt('--max-rpm', flags.maxRpm) : undefined;
  const retention = {
    ...(flags.retainDays !== undefined ? { retainDays: parsePositiveInt('--retain-days', flags.retainDays) } : {}),
    ...(flags.eraseDeleted ? { eraseDeletedAtSource: true } : {}),
  };
  const lockWaitMs = flags.wait !== undefined ? parseDurationArg('--wait', flags.wait) : 0;
  return { details, since, until, full: flags.full, retrySetAside: flags.retrySetAside, overlapMs, maxRpm, lockWaitMs, lockLeaseMs: leaseMs(), windowMs: testWindowMs(), retention };
}

/** Tests shrink the API's one-minute window to keep crawls short; users never need this. */
function testWindowMs(): number | undefined {
  const value = process.env.CONVODUCK_RATE_WINDOW_MS;
  return value ? parsePositiveInt('CONVODUCK_RATE_WINDOW_MS', value) : undefined;
}

/** Tests shorten the sync lock's lease to play a dead pod quickly; users keep the default. */
function leaseMs(): number | undefined {
  const value = process.env.CONVODUCK_LOCK_LEASE_MS;
  return value ? parsePositiveInt('CONVODUCK_LOCK_LEASE_MS', value) : undefined;
}

/** Runs `work` with a signal that Ctrl-C / SIGTERM abort (a second signal exits at once). */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts > 1) process.exit(INTERRUPTED_EXIT);
    process.stderr.write(`\nconvoduck: ${signal}: committing what was fetched, then stopping (again to quit at once)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
