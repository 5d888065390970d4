// Errors the CLI turns into one line on stderr and a documented exit code, never a stack trace.

export const EXIT = {
  ok: 0,
  /** the run finished, but with recorded errors (or a SQL error in `query`) */
  failed: 1,
  usage: 2,
  auth: 3,
} as const;

export class CliError extends Error {
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
