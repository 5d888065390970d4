// Payment card numbers: 13 to 19 digits, written solid or in groups (4-4-4-4, Amex 4-6-5,
// 4-4-4-4-3) with one kind of separator, that pass the Luhn check AND begin with an issuer
// prefix of a length that issuer uses. The prefix test is what keeps IMEIs (Luhn-valid, 15
// digits, 35…/86…) and most Luhn-valid ids out; a 16-digit number that fails Luhn is never a card.

import { afterIbanHead, labelledAsId } from './labels.js';
import { luhnValid } from './luhn.js';
import type { Span } from './spans.js';

// Not glued to a word, an amount, a date or a longer number on either side.
const CARD = /(?<![\p{L}\p{N}_.,\-/:#+@])\d{4}(?:([ -])\d{2,7}(?:\1\d{1,7}){1,3}|\d{9,15})(?![\p{L}\p{N}_@]|[.,\-/:]\d)/gu;

/** Issuer ranges and the lengths they issue (ISO/IEC 7812 IIN ranges of the common schemes). */
export function issuerAccepts(digits: string): boolean {
  const n = digits.length;
  const p2 = Number(digits.slice(0, 2));
  const p3 = Number(digits.slice(0, 3));
  const p4 = Number(digits.slice(0, 4));
  switch (digits[0]) {
    case '4': // Visa
      return n === 13 || n === 16 || n === 19;
    case '5': // Mastercard 51–55; Maestro 50, 56–58
      return p2 >= 51 && p2 <= 55 ? n === 16 : n >= 13;
    case '2': // Mastercard 2221–2720; Mir 2200–2204
      return ((p4 >= 2221 && p4 <= 2720) || (p4 >= 2200 && p4 <= 2204)) && n === 16;
    case '3': // Amex 34, 37; Diners 300–305, 36, 38, 39; JCB 3528–3589
      if (p2 === 34 || p2 === 37) return n === 15;
      if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14;
      return p4 >= 3528 && p4 <= 3589 && n >= 16;
    case '6': // Discover 6011, 644–649, 65; UnionPay 62; Maestro 6…
      return n >= 16 || (p2 !== 60 && p2 !== 62 && p2 !== 64 && p2 !== 65 && n >= 13);
    default:
      return false;
  }
}

/** Card numbers in the text, each a span over the digits and their separators. */
export function detectCards(text: string): Span[] {
  const spans: Span[] = [];
  CARD.lastIndex = 0;
  for (let m = CARD.exec(text); m !== null; m = CARD.exec(text)) {
    if (labelledAsId(text, m.index) || afterIbanHead(text, m.index)) continue;
    const length = cardLength(m[0], m[1]);
    if (length > 0) spans.push({ kind: 'card', start: m.index, end: m.index + length });
  }
  return spans;
}

// A grouped match may run on into what follows ("4111 1111 1111 1111 123", the CVV): drop
// trailing groups until the digits make a card, or none do. Returns the card's length, or 0.
function cardLength(raw: string, separator: string | undefined): number {
  if (separator === undefined) return isCardNumber(raw) ? raw.length : 0;
  const groups = raw.split(separator);
  for (let k = groups.length; k >= 3; k--) {
    const digits = groups.slice(0, k).join('');
    if (digits.length < 13) break;
    if (isCardNumber(digits)) return groups.slice(0, k).join(separator).length;
  }
  return 0;
}

/** 13–19 digits from a card issuer's range that pass Luhn. */
export function isCardNumber(digits: string): boolean {
  return digits.length >= 13 && digits.length <= 19 && issuerAccepts(digits) && luhnValid(digits);
}
