// `forget --match`: a caller's phone number or e-mail address, found in stored text whatever form
// it was written in there. Only these two are accepted: a free word would erase whatever happens to
// contain it. A phone number matches when its digits are the same number: `030 1234567`,
// `+49 30 1234567`, `+49 (0)30 1234567` and `+49301234567` are one number. A number given in its
// national form (without country code) matches that number under any country code. Said aloud is
// the same as written: a number or address in a transcript of speech ("four one five, five five
// five …", "max dot weber at web dot de") is turned into digits or an address and compared so,
// and a --match may be given spoken too.
// Pure: the store's text is searched in select.ts.

import { detectEmails, detectPhones, detectSpokenEmails, detectSpokenNumbers, isPhoneNumber, SPOKEN_RUN_RE2 } from '../redact/index.js';
import { InvalidInputError } from '../shared/errors.js';

export type MatchTarget =
  | { kind: 'phone'; international: boolean; digits: string }
  | { kind: 'email'; address: string };

/** The phone number or e-mail address `text` is; refuses anything else (exit 2). */
export function parseMatch(text: string): MatchTarget {
  const t = text.trim();
  if (/^[^\s@]+@[^\s@]+$/.test(t) && detectEmails(t).length === 1) return { kind: 'email', address: t.toLowerCase() };
  if (isPhoneNumber(t)) return { kind: 'phone', ...phoneDigits(t) };
  const said = t.replace(/[.,;!?]+$/, '');
  const number = detectSpokenNumbers(said).find((s) => s.kind === 'phone' && s.start === 0 && s.end === said.length);
  if (number) return { kind: 'phone', ...phoneDigits(number.digits) };
  const address = detectSpokenEmails(said).find((s) => s.start === 0 && s.end === said.length);
  if (address) return { kind: 'email', address: address.address };
  throw new InvalidInputError(
    `--match ${JSON.stringify(text)} is neither a phone number nor an e-mail address — pass one of the caller's (e.g. --match "+49 30 1234567" or --match ann@example.com), or select by --id / --session-ref`,
  );
}

/** The number's digits: after the `+`/`00` when international, after the trunk `0` when national. */
function phoneDigits(s: string): { international: boolean; digits: string } {
  const intl = /^\(?(?:\+|00(?=[1-9]))/.exec(s);
  if (intl) return { international: true, digits: s.slice(intl[0].length).replace(/\s?\(0\)\s?/, ' ').replace(/\D/g, '') };
  const digits = s.replace(/\D/g, '');
  if (digits.startsWith('0')) return { international: false, digits: digits.slice(1) };
  // North American: drop the country code 1 written before the area code
  return { international: false, digits: digits.length === 11 && digits.startsWith('1') ? digits.slice(1) : digits };
}

function samePhone(a: { international: boolean; digits: string }, b: { international: boolean; digits: string }): boolean {
  if (a.international === b.international) return a.digits === b.digits;
  const [full, national] = a.international ? [a.digits, b.digits] : [b.digits, a.digits];
  const countryCode = full.length - national.length;
  return countryCode >= 1 && countryCode <= 3 && full.endsWith(national);
}

/** Whether `text` holds the target (any JSON text included: its strings are searched as written). */
export function textHolds(target: MatchTarget, text: string): boolean {
  if (target.kind === 'email') {
    return (
      detectEmails(text).some((s) => text.slice(s.start, s.end).toLowerCase() === target.address) ||
      detectSpokenEmails(text).some((s) => s.address === target.address)
    );
  }
  return (
    detectPhones(text).some((s) => samePhone(target, phoneDigits(text.slice(s.start, s.end)))) ||
    detectSpokenNumbers(text).some((s) => s.kind === 'phone' && samePhone(target, phoneDigits(s.digits)))
  );
}

/**
 * A cheap test SQL runs before textHolds: a condition on column `c` that every text that may hold
 * the target meets, with its parameters. It lets through more than textHolds does, never less.
 */
export function prefilter(target: MatchTarget): { sql: (column: string) => string; params: string[] } {
  if (target.kind === 'email') {
    // the longest word of the domain is in the address written or said ("example" of "example dot com")
    const domain = target.address.slice(target.address.lastIndexOf('@') + 1).split('.').slice(0, -1);
    const word = domain.flatMap((l) => l.split(/[^\p{L}\p{N}]+/u)).reduce((a, b) => (b.length > a.length ? b : a), '');
    return { sql: (c) => `contains(lower(${c}), ?)`, params: [word || target.address] };
  }
  // the last seven digits are in every written form of the number, whatever prefix it has; a
  // spoken one has three number words or digits in a row
  return {
    sql: (c) => `(contains(regexp_replace(${c}, '[^0-9]', '', 'g'), ?) OR regexp_matches(lower(${c}), ?))`,
    params: [target.digits.slice(-7), SPOKEN_RUN_RE2],
  };
}

/** The selector in the one form a keyed hash of it is taken of: the same caller, the same hash. */
export function canonicalMatch(target: MatchTarget): string {
  return target.kind === 'email' ? `email:${target.address}` : `phone:${target.international ? '+' : '0'}${target.digits}`;
}
