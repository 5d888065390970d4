// The query string (and fragment) of a URL is where sites put what a visitor typed: search
// terms, e-mail addresses, order lookups, tokens. A page_url keeps its origin and path (which
// page), and loses or cleans what follows "?":
// - 'drop':   https://shop.example/checkout?email=a%40b.de#step2 → https://shop.example/checkout?[query]
// - 'values': each value is decoded and run through the detectors; one that held a personal
//             datum is written back with placeholders (email=[email]), the others untouched
// - 'keep':   the URL as it is.

import { detectPersonalData } from './detect.js';
import { replaceSpans, type PersonalKind } from './spans.js';

export type UrlQueryMode = 'keep' | 'drop' | 'values';

/** Finds http(s) URLs in free text; stops at whitespace, quotes and angle brackets. */
export const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`]+/g;

/** A URL with its query string and fragment treated according to `mode`. */
export function redactUrlQuery(url: string, mode: UrlQueryMode, kinds?: readonly PersonalKind[]): string {
  const q = url.search(/[?#]/);
  if (mode === 'keep' || q < 0) return url;
  // a URL at the end of a sentence: the final "." or ")" is not part of it
  const trail = /[.,;:!?)]+$/.exec(url.slice(q + 1))?.[0] ?? '';
  const tail = url.slice(q, url.length - trail.length);
  if (mode === 'drop') return `${url.slice(0, q)}${tail.length > 1 ? '?[query]' : tail}${trail}`;
  return url.slice(0, q) + tail.replace(/([?&#;][^=&#;]*=)([^&#;]*)/g, (_, key: string, value: string) => key + cleanValue(value, kinds)) + trail;
}

function cleanValue(value: string, kinds?: readonly PersonalKind[]): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    decoded = value; // malformed escapes: look at it as it is
  }
  const spans = detectPersonalData(decoded, kinds);
  if (spans.length === 0) return value;
  // re-encode, but keep the placeholders readable: email=[email], q=call%20[phone]
  return encodeURIComponent(replaceSpans(decoded, spans)).replace(/%5B(email|phone|card|iban)%5D/g, '[$1]');
}
