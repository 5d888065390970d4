// A detail the server keeps sending broken: what a run stores of it instead of an error.

import { ApiError } from '../api/client.js';
import { redactBodyText, type Redaction } from '../redact/index.js';
import { setAsideUnstorable } from '../store/normalise.js';
import { fetchedDetail, type FetchedDetail, type StoredAt } from '../store/writes.js';

/**
 * A detail whose body the server sent broken, the same way on every attempt of the client's: JSON
 * text that does not parse is kept as text, set aside with the parser's reason; a body over the
 * size limit is set aside unkept. Both are the data's state (the next run would get them again),
 * not errors; a body that is not JSON at all (an HTML page) stays an error the next run retries.
 */
export function unreadableBody(id: string, fetchedAt: Date, storedAt: StoredAt, err: unknown, atRest: Redaction | null): FetchedDetail | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === 'invalid_json' && err.raw !== undefined) return fetchedDetail(id, fetchedAt, atRest ? redactBodyText(err.raw, atRest) : err.raw, storedAt);
  if (err.code === 'body_too_large') return { id, fetchedAt, body: '', normalised: setAsideUnstorable(TOO_LARGE), storedAt };
  return null;
}

/** The reason of a detail whose body was over the client's size limit (its raw body is not kept). */
export const TOO_LARGE = 'body is over the size limit; not kept';

