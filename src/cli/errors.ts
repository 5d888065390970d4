// Errors the CLI turns into one line on stderr and a documented exit code, never a stack trace.
// The library throws its own classes (src/shared/errors.ts and the modules' own); toCliError is
// the one place that decides which exit code each of them means.

import { AuthError } from '../api/errors.js';
import { SyncLockedError } from '../store/sync-lock.js';
import { DatabaseBusyError, DatabaseReadError, InvalidInputError, QueryError, StoreError } from '../shared/errors.js';

export const EXIT = {
  ok: 0,
  /** the run finished, but with recorded errors (or a SQL error in `query`) */
  failed: 1,
  usage: 2,
  auth: 3,
  /** another sync was writing the database: this run left it alone (sysexits.h's EX_TEMPFAIL: try again later) */
  busy: 75,
  /** `alert`: the rules were evaluated and at least one alert is firing */
  alertsFiring: 10,
} as const;

export class CliError extends Error {
  /** set once the command printed its own `--json` outcome for this error */
  outcomePrinted = false;

  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** Bad flags, settings or files: exit 2. The message says what was wrong and what to do. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

/**
 * The message and exit code for an error a command let through, or undefined when it is none
 * of convoduck's own (a bug: main.ts reports it as unexpected).
 */
export function toCliError(err: unknown): CliError | undefined {
  if (err instanceof CliError) return err;
  if (err instanceof SyncLockedError) return new CliError(err.message, EXIT.busy);
  if (err instanceof InvalidInputError || err instanceof StoreError) {
    return new UsageError(err.message);
  }
  if (err instanceof QueryError || err instanceof DatabaseBusyError || err instanceof DatabaseReadError) {
    return new CliError(err.message, EXIT.failed);
  }
  if (err instanceof AuthError) return new CliError(err.message, EXIT.auth);
  return undefined;
}
