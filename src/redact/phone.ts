// Phone numbers in the forms people and speech-to-text write them:
// - international, with "+" or "00": +49 30 1234567, +49 (0)151 2345678, +1 (415) 555-0132,
//   +44 20 7946 0958, 0049-30-1234567, +4930123456 — 8 to 15 digits after the prefix (E.164);
// - national with a trunk "0": 030 1234567, 030/1234567, (030) 123 45 67, 0151 23456789,
//   020 7946 0958, 06 12 34 56 78 — 9 to 13 digits, solid or grouped;
// - North American without "+": (415) 555-0132, 415-555-0132, 415.555.0132, 1-800-555-0199 —
//   grouped 3-3-4 with a valid area code and exchange (a solid 10-digit run is not caught: it is
//   as likely an id).
// Not caught: local numbers without an area code (555-0132, 1234567). Numbers said in words or
// digit by digit are spoken.ts's.
//
// One regex finds runs of digits joined by at most three separators ( . - / ( ) ); a run is then
// cut at its spaces and the longest well-formed number is taken from each piece, so a date or a
// count written next to a phone number does not spoil it. A parenthesis belongs to a number
// only as a closed group of a few digits ("(030)", "(0)", "(+49)"); any other one encloses the
// number ("call me (+49 30 1234567)") and ends it like a space would, never joins two.

import { afterIbanHead, labelledAsId } from './labels.js';
import type { Span } from './spans.js';

// Not glued to a word, a decimal, a path, an amount or an id on either side; a time (10:30) or
// an ISO date-time (2024-03-15T10:30) ends in a letter or a colon and digit, so it never matches.
const RUN = /(?<![\p{L}\p{N}_@#/.,+\-])(?:\+|\(\+?)?\d(?:[ .\-/()]{0,3}\d)*(?![\p{L}\p{N}_@]|[.,\-/:]\d)/gu;
const INTERNATIONAL = /^\(?(?:\+|00(?=[1-9]))/;
// the "(0)" Germans, Austrians and Britons write after the country code
const TRUNK_IN_PARENS = /\s?\(0\)\s?/;

/** Phone numbers in the text. */
export function detectPhones(text: string): Span[] {
  const spans: Span[] = [];
  RUN.lastIndex = 0;
  for (let m = RUN.exec(text); m !== null; m = RUN.exec(text)) {
    if (m[0].length < 7) continue;
    for (const [from, part] of enclosedParts(m[0])) {
      const at = m.index + from;
      if (part.length < 7 || cardShaped(part) || afterIbanHead(text, at)) continue;
      for (const [start, end] of phonesInRun(part)) {
        if (labelledAsId(text, at + start)) continue;
        spans.push({ kind: 'phone', start: at + start, end: at + end });
      }
    }
  }
  return spans;
}

// The run cut at each parenthesis that is not part of a closed group: "(0171 1234567) 12" holds
// "0171 1234567" and "12", "+49 (0)30 1234567" stays whole. Each part with its offset in the run.
function enclosedParts(run: string): Array<[number, string]> {
  if (!run.includes('(') && !run.includes(')')) return [[0, run]];
  const groupsHidden = run.replace(PAREN_GROUP, (g) => '0'.repeat(g.length));
  const parts: Array<[number, string]> = [];
  for (const p of groupsHidden.matchAll(/[^()]+/g)) {
    const from = p.index + p[0].search(/\S/);
    const to = p.index + p[0].trimEnd().length;
    if (to > from) parts.push([from, run.slice(from, to)]);
  }
  return parts;
}

// Pieces start and end at the run's spaces; from each start the longest well-formed piece wins.
// A piece without a digit ("/" or "-" between two numbers) may stand inside a number, never end one.
function phonesInRun(run: string): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  for (const t of run.matchAll(/\S+/g)) if (/\d/.test(t[0])) pieces.push([t.index, t.index + t[0].length]);
  const found: Array<[number, number]> = [];
  for (let i = 0; i < pieces.length; i++) {
    for (let j = pieces.length - 1; j >= i; j--) {
      const start = pieces[i]![0];
      const end = pieces[j]![1];
      if (isPhoneNumber(run.slice(start, end))) {
        found.push([start, end]);
        i = j;
        break;
      }
    }
  }
  return found;
}

/** True when the whole string is a phone number in one of the forms above. */
export function isPhoneNumber(s: string): boolean {
  if (!parensBalanced(s)) return false;
  const intl = INTERNATIONAL.exec(s);
  if (intl) {
    const digits = s.slice(intl[0].length).replace(TRUNK_IN_PARENS, ' ').replace(/\D/g, '');
    return digits.length >= 8 && digits.length <= 15 && digits[0] !== '0';
  }
  const groups = s.split(/\D+/).filter(Boolean);
  const digits = groups.join('');
  if (digits[0] === '0') {
    return digits.length >= 9 && digits.length <= 13 && digits[1] !== '0' && !ipLike(s, groups);
  }
  return northAmerican(digits, groups.map((g) => g.length).join('-'));
}

// NANP: area code and exchange begin with 2–9; written in groups, optionally after a "1".
function northAmerican(digits: string, shape: string): boolean {
  const national = shape === '3-3-4' ? digits : shape === '1-3-3-4' && digits[0] === '1' ? digits.slice(1) : '';
  return national.length === 10 && national[0]! >= '2' && national[3]! >= '2';
}

// every "(" closed by a ")" with only digits (or a "+" first) between: "(030)", "(0)", "(+49)"
function parensBalanced(s: string): boolean {
  if (!s.includes('(') && !s.includes(')')) return true;
  return s.replace(PAREN_GROUP, '').search(/[()]/) < 0;
}
const PAREN_GROUP = /\(\+?\d{1,5}\)/g;

// 010.100.200.300 is an address, not a number to call
function ipLike(s: string, groups: string[]): boolean {
  return groups.length === 4 && groups.every((g) => g.length <= 3) && /^[\d.]+$/.test(s);
}

// Digits in groups of four, 13 or more of them: a card number, or one that failed its Luhn check.
// Its tail ("0151 2345 6789") must not be taken for a phone number either way.
function cardShaped(run: string): boolean {
  const groups = run.split(/[ -]/);
  return groups.length >= 4 && groups.slice(0, -1).every((g) => /^\d{4}$/.test(g)) && /^\d{1,4}$/.test(groups.at(-1)!);
}
