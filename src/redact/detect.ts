// All detectors over one text, their overlaps resolved. Each detector is one regex pass behind
// a cheap test that skips text that cannot hold its kind: most turns have no "@" and fewer
// digits than the shortest phone number, and cost four character scans, not four regex passes.
// Spoken forms (spoken.ts, spoken-email.ts) share one cheap test: three number words or single
// digits in a row, or a spoken "dot"; most turns are short, so one regex call per turn is the cost.

import { detectCards } from './card.js';
import { detectEmails } from './email.js';
import { detectIbans } from './iban.js';
import { detectPhones } from './phone.js';
import { detectSpokenEmails } from './spoken-email.js';
import { detectSpokenNumbers } from './spoken.js';
import { THREE_IN_A_ROW } from './spoken-digits.js';
import { countDigits, PERSONAL_KINDS, resolveOverlaps, type PersonalKind, type Span } from './spans.js';

// The fewest digits each numeric kind can have: a Norwegian IBAN has 13, a short phone number 8.
const MIN_DIGITS = { phone: 8, card: 13, iban: 11 } as const;

/** Every personal datum of the given kinds in the text: sorted, disjoint spans. */
export function detectPersonalData(text: string, kinds: readonly PersonalKind[] = PERSONAL_KINDS): Span[] {
  const spans: Span[] = [];
  if (kinds.includes('email')) spans.push(...detectEmails(text));
  const digits = countDigits(text);
  if (digits >= MIN_DIGITS.iban && kinds.includes('iban')) spans.push(...detectIbans(text));
  if (digits >= MIN_DIGITS.card && kinds.includes('card')) spans.push(...detectCards(text));
  if (digits >= MIN_DIGITS.phone && kinds.includes('phone')) spans.push(...detectPhones(text));
  if (SPOKEN_HINT.test(text)) {
    if (kinds.includes('email')) spans.push(...detectSpokenEmails(text).map(spanOf));
    for (const s of detectSpokenNumbers(text)) if (kinds.includes(s.kind)) spans.push(spanOf(s));
  }
  return resolveOverlaps(spans);
}

const SPOKEN_HINT = new RegExp(`${THREE_IN_A_ROW.source}|\\b(?:dot|punkt)\\b`, 'i');

// the span alone: what else a spoken detector returns (the digits, the address) is for forget --match
const spanOf = (s: Span): Span => ({ kind: s.kind, start: s.start, end: s.end });
