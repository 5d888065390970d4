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
  // a URL at the end of a sentence or in brackets: the final ".", ")", "]" or "»" is not part of it
  const trail = /[.,;:!?)\]»]+$/.exec(url.slice(q + 1))?.[0] ?? '';
  const tail = url.slice(q, url.length - trail.length);
  if (mode === 'drop') return `${url.slice(0, q)}${tail.length > 1 ? '?[query]' : tail}${trail}`;
  return url.slice(0, q) + tail.replace(/([?&#;][^=&#;]*=)([^&#;]*)/g, (_, key: string, value: string) => key + cleanValue(value, kinds)) + trail;
}

// Only the personal data in a value is replaced; every other character stays as it was written
// (encoded or not), so "email=(max%40web.de)," keeps its "(", ")" and "," and "q=call+…" its "+".
function cleanValue(value: string, kinds?: readonly PersonalKind[]): string {
  const units = decodeUnits(value);
  const decoded = units.map((u) => u.text).join('');
  const spans = detectPersonalData(decoded, kinds);
  if (spans.length === 0) return value;
  let out = '';
  let at = 0; // offset in `decoded` of the unit under `u`
  let span = 0;
  for (const u of units) {
    while (span < spans.length && spans[span]!.end <= at) span++;
    const s = spans[span];
    if (s === undefined || at + u.text.length <= s.start) out += u.raw;
    else if (at <= s.start) out += `[${s.kind}]`; // the first unit a datum touches writes it
    at += u.text.length;
  }
  return out;
}

// A query value as what it says, one character (or one percent-encoded UTF-8 character, or one
// "+") at a time, each with the text it was written as. A malformed escape is read as written.
function decodeUnits(value: string): Array<{ raw: string; text: string }> {
  const units: Array<{ raw: string; text: string }> = [];
  for (let i = 0; i < value.length; ) {
    const ch = value[i]!;
    if (ch === '%') {
      const lead = parseInt(value.slice(i + 1, i + 3), 16);
      const bytes = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      const raw = value.slice(i, i + 3 * bytes);
      try {
        units.push({ raw, text: decodeURIComponent(raw) });
        i += raw.length;
        continue;
      } catch {
        // not an escape of a whole character: fall through and take the "%" as it is
      }
    }
    const cp = value.codePointAt(i)!;
    const raw = String.fromCodePoint(cp);
    units.push({ raw, text: ch === '+' ? ' ' : raw });
    i += raw.length;
  }
  return units;
}
