// The shapes of the simulator's answers: a route's result, the error body {code, message}
// (+ errors for 422; codes unauthenticated, forbidden, not_found, method_not_allowed,
// validation_failed, rate_limited), and HttpError, which a route throws to answer with one.

export const JSON_TYPE = 'application/json; charset=utf-8';

/** What a route answers, before rate headers, faults and latency are applied. */
export interface RouteResult {
  status: number;
  /** text, or bytes when a test serves what is not UTF-8 */
  body: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
}

/** How an answer goes out and is logged: a whole response, or just the final status before raw writes. */
export interface Reply {
  send(status: number, body: string | Buffer, headers: Record<string, string>, contentType?: string): void;
  done(status: number): void;
}

/** Thrown by a route to answer with an error (codes: forbidden, not_found, method_not_allowed, validation_failed). */
export class HttpError {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly message: string,
    readonly extra: Record<string, unknown> = {},
  ) {}
}

export function errorBody(code: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ code, message, ...extra });
}

export function notFound(what: string, id: string, space: string): never {
  throw new HttpError(404, 'not_found', `No ${what} with id "${id}" in space "${space}".`);
}

/** The answer to an error a route threw: its own status and body, or a 500 for a simulator bug. */
export function errorResult(err: unknown): RouteResult {
  if (err instanceof HttpError) {
    const result: RouteResult = { status: err.status, body: errorBody(err.code, err.message, err.extra) };
    if (err.status === 405) result.headers = { Allow: 'GET' };
    return result;
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: errorBody('server_error', `Simulator bug: ${message}`) };
}
