// Redaction at rest (`sync --redact-at-rest`): a conversation as the API sent it, cleaned before
// it is stored, by the same rules as the outputs' (outputs.ts). The body is cleaned as parsed
// JSON, string by string, so that what is stored is JSON still and normalise.ts derives the same
// rows from it as from the cleaned value (and `rebuild` the same again). Irreversible: the text
// replaced is in no table, and no key brings it back.

import { keyedHash } from './keyed-hash.js';
import { redactValue, type Redaction } from './outputs.js';
import { redactText } from './redact-text.js';
import { redactUrlQuery } from './url-query.js';

/** Values the store joins on: kept exactly (the detectors leave ids alone; this makes it certain). */
const IDENTIFIERS = new Set(['id', 'agent_id', 'tool_id']);
/** Fields that hold one URL: its query values cleaned, as the page_url column's rule does. */
const URLS = new Set(['page_url', 'recording_url']);

/**
 * A parsed API body (a list entry, a detail) with every string value cleaned: placeholders over
 * personal data, a URL's query values cleaned, `session_ref` (at any depth) replaced by its keyed
 * hash. A number whose digits are a card or phone number becomes its placeholder (a string).
 * Field names are kept. The input is not changed.
 */
export function redactBody(value: unknown, redaction: Redaction): unknown {
  return clean(value, undefined, redaction);
}

function clean(value: unknown, field: string | undefined, redaction: Redaction): unknown {
  if (typeof value === 'string') {
    if (field === 'session_ref') return keyedHash(value, redaction.key);
    if (field !== undefined && IDENTIFIERS.has(field)) return value;
    if (field !== undefined && URLS.has(field)) return redactText(redactUrlQuery(value, 'values'));
    return redactText(value);
  }
  if (typeof value === 'number') {
    const digits = String(value);
    const cleaned = redactText(digits);
    return cleaned === digits ? value : cleaned;
  }
  if (Array.isArray(value)) return value.map((v) => clean(v, field, redaction));
  if (typeof value === 'object' && value !== null) {
    // fromEntries defines own properties: a "__proto__" field stays a field
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v, k, redaction)]));
  }
  return value;
}

/** A body kept as text that is not JSON (set aside as received): its text cleaned, each `"session_ref"` member hashed. */
export function redactBodyText(text: string, redaction: Redaction): string {
  return redactValue('text', text, redaction);
}
