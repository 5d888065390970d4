// What a failed API call throws. `fatal` errors stop a run (the key or the space is wrong);
// `transient` ones may pass on a later run. No message ever holds the API key.

export interface ApiErrorInit {
  status: number | null;
  code: string;
  method: string;
  /** path and query, without the host */
  path: string;
  body?: unknown;
  raw?: string;
  cause?: unknown;
}

/** Any failed API call. `status` is null when no HTTP response was involved. */
export class ApiError extends Error {
  readonly status: number | null;
  readonly code: string;
  readonly method: string;
  readonly path: string;
  /** Parsed error body, when there was one. */
  readonly body: unknown;
  /** Raw response text, when it matters (invalid JSON, HTML instead of JSON). */
  readonly raw: string | undefined;
  /** The run cannot go on (bad key, wrong space): stop instead of recording and moving on. */
  readonly fatal: boolean = false;
  /** Retrying later (another run) may succeed. */
  readonly transient: boolean = false;

  constructor(message: string, init: ApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
    this.raw = init.raw;
  }
}

/** 401 (key missing, wrong or deleted) or 403 (another space): fatal, stop the run. */
export class AuthError extends ApiError {
  override readonly fatal = true;
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    this.name = 'AuthError';
  }
}

/** 404: the record does not exist (any more). */
export class NotFoundError extends ApiError {
  constructor(message: string, init: ApiErrorInit) {
    super(message, init);
    this.name = 'NotFoundError';
  }
}

/** Retries exhausted (5xx, network, timeouts, bad bodies, or still throttled). */
export class TransientError extends ApiError {
  override readonly transient = true;
  /** Attempts made, including the first. */
  readonly attempts: number;
  constructor(message: string, init: ApiErrorInit & { attempts: number }) {
    super(message, init);
    this.name = 'TransientError';
    this.attempts = init.attempts;
  }
}
