// redactText: free text (a transcript turn, a summary, a tool call's input or output) with the
// personal data convoduck recognises replaced by typed placeholders.
//
// Caught: e-mail addresses; phone numbers in international (+49 30 1234567, 0044 20 7946 0958),
// national (030/1234567, 0151 23456789) and North American grouped forms ((415) 555-0132,
// 415-555-0132); payment card numbers of 13–19 digits from a card issuer's range that pass Luhn;
// IBANs of their country's length that pass mod-97; in 'values' mode, these same data inside a
// URL's percent-encoded query values.
// Never replaced: ids, UUIDs, ISO timestamps, dates, times, order and tracking numbers, amounts,
// versions, IP addresses, postcodes, a 16-digit number that fails Luhn, an IBAN-like string
// that fails mod-97, and a number labelled right before it as an order, customer, tracking,
// invoice or account number (labels.ts).
// Said aloud, as a transcript of a call writes them (spoken.ts, spoken-email.ts): phone, card and
// IBAN numbers in English or German digit words, pairs and hundreds, or digits one by one; e-mail
// addresses with a spoken "at" and "dot".
// Not caught: local phone numbers without an area code, a solid 10-digit North American number
// typed, digits read out one group at a time across sentences, names, postal addresses, birth
// dates, and anything else not in the list above. docs/personal-data.md says this to users.

import { detectPersonalData } from './detect.js';
import { PERSONAL_KINDS, replaceSpans, type PersonalKind } from './spans.js';
import { redactUrlQuery, URL_IN_TEXT, type UrlQueryMode } from './url-query.js';

export interface RedactOptions {
  /** which kinds to replace; all by default */
  kinds?: readonly PersonalKind[];
  /** what happens to the query string of a URL in the text; 'values' by default */
  urlQuery?: UrlQueryMode;
}

/** The text with each recognised personal datum replaced by `[email]`, `[phone]`, `[card]` or `[iban]`. */
export function redactText(text: string, options: RedactOptions = {}): string {
  const kinds = options.kinds ?? PERSONAL_KINDS;
  const mode = options.urlQuery ?? 'values';
  const withUrls = mode !== 'keep' && text.includes('://') ? redactUrls(text, mode, kinds) : text;
  return replaceSpans(withUrls, detectPersonalData(withUrls, kinds));
}

function redactUrls(text: string, mode: UrlQueryMode, kinds: readonly PersonalKind[]): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrlQuery(url, mode, kinds));
}
