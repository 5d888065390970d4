// Phone and card numbers as a transcript of speech writes them ("four one five, five five five,
// zero one nine eight", "null eins fünf eins …", "4 1 5 5 5 5 0 1 9 8"): each run of spoken or
// spaced digits (spoken-digits.ts) turned into digits and judged by the rules of the typed
// detectors. Everyday numbers stay: a run must hold at least MIN_DIGITS digits and make a whole
// number of a valid form, so "two or three questions", "five minutes", "ten thirty" and
// "nineteen ninety nine" never reach the checks.
//
// Rules (docs/personal-data.md says them to users):
// - phone: "plus" then 8–15 digits not starting with 0; "0 0" then the same; a trunk "0" then
//   9–13 digits in all; or 10 North American digits (area code and exchange begin with 2–9),
//   optionally after a "1". Said in words there are no groups to tell a number from an id, so a
//   solid 10-digit North American number counts here, unlike typed.
// - card: 13–19 digits from a card issuer's range that pass Luhn (card.ts).
// - the run must hold a digit word, or be digits written one by one ("4 1 5 5"): a typed
//   number ("030 1234567", "ORD-2024-000123") is the typed detectors' to judge.
// - iban: two letters spelled before the digits ("D E eight nine …") make the run an IBAN, and
//   it counts only when it has its country's length and passes mod-97 (iban.ts).
// - a number named right before it as an order, customer, … number is left alone (labels.ts),
//   and so is a count up or down ("one, two, three, four, five …").
// - a phone number without "plus" or a trunk "0" holds one ten or teen at most: prices, years
//   and times are said in pairs ("nineteen ninety nine, twenty four ninety nine").
// Within a run the longest valid number from the earliest start wins; a leading "oh" followed by
// a pause is left out when the number is valid without it ("Oh, four one five …").

import { isCardNumber } from './card.js';
import { ibanValid } from './iban.js';
import { afterIbanHead, labelledAsId } from './labels.js';
import type { Span } from './spans.js';
import { mayHoldSpokenNumber, spokenRuns, type SpokenRun, type SpokenUnit } from './spoken-digits.js';

/** The fewest digits a spoken number must have to be judged at all: a North American number without area code has 7. */
const MIN_DIGITS = 8;
/** The most digits one number can have: a card of 19 (a phone number has at most 15 after "+"). */
const MAX_DIGITS = 19;
/** The fewest units that can make MIN_DIGITS: "neunhundert" is three digits, "dreiundzwanzig" two (mayHoldSpokenNumber asks for three). */
const MIN_UNITS = 3;

/** A spoken number found: its span and the digits it says, with "+" first when said internationally. */
export interface SpokenNumber extends Span {
  kind: 'phone' | 'card' | 'iban';
  digits: string;
}

/** Spoken phone and card numbers in the text. */
export function detectSpokenNumbers(text: string): SpokenNumber[] {
  if (!mayHoldSpokenNumber(text)) return [];
  const found: SpokenNumber[] = [];
  for (const run of spokenRuns(text, MIN_UNITS)) found.push(...numbersInRun(text, run));
  return found;
}

function numbersInRun(text: string, run: SpokenRun): SpokenNumber[] {
  const units = run.units;
  if (units.reduce((n, u) => n + u.digits.length, 0) < MIN_DIGITS) return [];
  // a typed number (groups of several digits, no word) is not the spoken detector's to judge
  if (!units.some((u) => u.word) && units.some((u) => u.digits.length > 1)) return [];
  if (countsInOrder(units)) return [];
  // "D E eight nine three seven …": an IBAN read out, judged as one, never as a phone number
  const from = Math.max(0, units[0]!.start - 8);
  const head = SPELLED_COUNTRY.exec(text.slice(from, units[0]!.start));
  if (head) {
    const iban = `${head[1]}${head[2]}${units.map((u) => u.digits).join('')}`.toUpperCase();
    return ibanValid(iban) ? [{ kind: 'iban', start: from + head.index, end: units.at(-1)!.end, digits: iban }] : [];
  }
  const out: SpokenNumber[] = [];
  for (let i = 0; i < units.length; i++) {
    const plus = i === 0 && run.plusAt >= 0;
    const hit = longestFrom(units, i, plus);
    if (hit === null) continue;
    let { j, kind, digits } = hit;
    let from = i;
    // "Oh, four one five …": the "oh" is a word of its own when the number stands without it
    if (units[i]!.oh && !plus) {
      const without = pairs(units, i + 1, j) <= 1 ? judge(digits.slice(1), false) : null;
      if (without !== null && units.slice(i + 1, j + 1).some((u) => u.word)) {
        from = i + 1;
        kind = without;
        digits = digits.slice(1);
      }
    }
    const start = plus ? run.plusAt : units[from]!.start;
    i = j;
    if (labelledAsId(text, start) || afterIbanHead(text, start)) continue;
    out.push({ kind, start, end: units[j]!.end, digits: plus ? `+${digits}` : digits });
  }
  return out;
}

// The longest run of units from i that is a number; null when none is.
function longestFrom(units: SpokenUnit[], i: number, plus: boolean): { j: number; kind: 'phone' | 'card'; digits: string } | null {
  let digits = '';
  let last = i;
  for (let j = i; j < units.length && digits.length + units[j]!.digits.length <= MAX_DIGITS; j++) {
    digits += units[j]!.digits;
    last = j;
  }
  for (let j = last; j >= i; j--) {
    if (digits.length >= MIN_DIGITS) {
      const kind = judge(digits, plus);
      if (kind !== null && (kind !== 'phone' || plus || digits[0] === '0' || pairs(units, i, j) <= 1)) return { j, kind, digits };
    }
    digits = digits.slice(0, digits.length - units[j]!.digits.length);
  }
  return null;
}

// two letters spelled out right before the digits: a country code ("D E", "a t")
const SPELLED_COUNTRY = /(?<![\p{L}\p{N}])(\p{L}) (\p{L})[ ,]+$/u;

/** What the digits are when said as one number: a card, a phone number, or neither (null). */
export function judge(digits: string, plus: boolean): 'phone' | 'card' | null {
  if (plus) return digits.length >= 8 && digits.length <= 15 && digits[0] !== '0' ? 'phone' : null;
  if (isCardNumber(digits)) return 'card';
  return spokenPhone(digits) ? 'phone' : null;
}

function spokenPhone(d: string): boolean {
  if (d.startsWith('00')) return d.length >= 10 && d.length <= 17 && d[2] !== '0';
  if (d[0] === '0') return d.length >= 9 && d.length <= 13;
  const national = d.length === 11 && d[0] === '1' ? d.slice(1) : d;
  return national.length === 10 && national[0]! >= '2' && national[3]! >= '2';
}

// Prices, years and times are said in pairs ("nineteen ninety nine"), North American numbers
// digit by digit: a number without "plus" or trunk "0" may hold one pair at most.
function pairs(units: SpokenUnit[], i: number, j: number): number {
  let n = 0;
  for (let k = i; k <= j; k++) if (units[k]!.pair) n++;
  return n;
}

// "one, two, three, four, five": a count, not a number to call
function countsInOrder(units: SpokenUnit[]): boolean {
  if (units.length < 4) return false;
  const values = units.map((u) => Number(u.digits));
  const step = values[1]! - values[0]!;
  return (step === 1 || step === -1) && values.every((v, k) => k === 0 || v - values[k - 1]! === step);
}
