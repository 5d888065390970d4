// Validation of query parameters; the spec shows none, so these are the simulator's choices:
// page/per_page must be decimal integers in range; from/to must be ISO 8601 dates or
// date-times (an offset-less date-time counts as UTC; a '+' sent unencoded arrives as a space
// and is rejected); enums (channel, outcome, status) must be known values; ids in filters
// (agent_id, connection_id) must be UUIDs. Errors collect per field and go out as one 422.

import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../api/types.js';
import { UUID_RE } from '../random.js';
import { HttpError } from './responses.js';

/** Messages per query field, as a 422 lists them under `errors`. */
export type FieldErrors = Record<string, string[]>;

const ISO_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|z|[+-]\d{2}:?\d{2})?)?$/;

function parseIsoDate(value: string): number | null {
  if (!ISO_RE.test(value)) return null;
  let v = value;
  // A date-time without an offset is read as UTC (Date.parse would use local time).
  if (/[T ]\d{2}:\d{2}/.test(v) && !/(?:Z|z|[+-]\d{2}:?\d{2})$/.test(v)) v += 'Z';
  v = v.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

export function paging(q: URLSearchParams, errors: FieldErrors): { page: number; perPage: number } {
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;
  const p = q.get('page');
  if (p !== null) {
    if (!/^\d+$/.test(p)) (errors.page ??= []).push('The page field must be an integer.');
    else if (Number(p) < 1) (errors.page ??= []).push('The page field must be at least 1.');
    else page = Number(p);
  }
  const pp = q.get('per_page');
  if (pp !== null) {
    if (!/^\d+$/.test(pp)) (errors.per_page ??= []).push('The per page field must be an integer.');
    else if (Number(pp) < 1) (errors.per_page ??= []).push('The per page field must be at least 1.');
    else if (Number(pp) > MAX_PER_PAGE) (errors.per_page ??= []).push(`The per page field must not be greater than ${MAX_PER_PAGE}.`);
    else perPage = Number(pp);
  }
  return { page, perPage };
}

export function checkEnum(q: URLSearchParams, name: string, allowed: readonly string[], errors: FieldErrors): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!allowed.includes(v)) (errors[name] ??= []).push(`The selected ${name} is invalid. Allowed: ${allowed.join(', ')}.`);
  return v;
}

/** The UUID in `name`, lower-cased. */
export function checkUuid(q: URLSearchParams, name: string, errors: FieldErrors): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (!UUID_RE.test(v)) (errors[name] ??= []).push(`The ${name.replace('_', ' ')} field must be a valid UUID.`);
  return v.toLowerCase();
}

/** The instant (ms) in `name`, or null when absent or invalid. */
export function checkDate(q: URLSearchParams, name: string, errors: FieldErrors): number | null {
  const v = q.get(name);
  if (v === null) return null;
  const ms = parseIsoDate(v);
  if (ms === null) (errors[name] ??= []).push(`The ${name} field must be an ISO 8601 date-time with a UTC offset, like 2024-05-01T00:00:00Z.`);
  return ms;
}

/** A 422 naming the first error (and how many more) when there are any. */
export function throwIfErrors(errors: FieldErrors): void {
  const fields = Object.keys(errors);
  if (fields.length === 0) return;
  const first = errors[fields[0]!]![0]!;
  const more = fields.length > 1 ? ` (and ${fields.length - 1} more error${fields.length > 2 ? 's' : ''})` : '';
  throw new HttpError(422, 'validation_failed', first + more, { errors });
}
