// IBANs (ISO 13616): a country code, two check digits and the national account number, written
// solid ("DE89370400440532013000") or in the print format of groups of four ("DE89 3704 0044 0532
// 0130 00"), in either letter case. A candidate counts only when its length is the one its
// country uses AND the ISO 7064 mod-97 check gives 1: a made-up or mistyped IBAN is left alone.

import type { Span } from './spans.js';

/** IBAN lengths by country (the SWIFT IBAN registry). */
const IBAN_LENGTH: Readonly<Record<string, number>> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 EG29 ES24 ' +
    'FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 ' +
    'LI21 LT20 LU20 LV21 LY25 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 ' +
    'SA24 SC31 SE24 SI19 SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20'
  )
    .split(' ')
    .map((e) => [e.slice(0, 2), Number(e.slice(2))]),
);

/** True when `iban` (no spaces, any case) has its country's length and passes mod-97. */
export function ibanValid(iban: string): boolean {
  const s = iban.toUpperCase();
  if (IBAN_LENGTH[s.slice(0, 2)] !== s.length) return false;
  return mod97(s.slice(4) + s.slice(0, 4)) === 1;
}

/** ISO 7064 MOD 97-10 of an alphanumeric string (A = 10 … Z = 35), digit by digit. */
export function mod97(s: string): number {
  let rem = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) rem = (rem * 10 + (c - 48)) % 97;
    else if (c >= 65 && c <= 90) rem = (rem * 100 + (c - 55)) % 97;
    else return -1;
  }
  return rem;
}

// The head: a country code and check digits not glued to a word before them.
const HEAD = /(?<![\p{L}\p{N}_])([A-Za-z]{2}) ?(\d{2})(?= ?[A-Za-z0-9])/gu;
const ALNUM = /[A-Za-z0-9]/;

/** IBANs in the text, each a span from the country code to the last character of the account. */
export function detectIbans(text: string): Span[] {
  const spans: Span[] = [];
  HEAD.lastIndex = 0;
  for (let m = HEAD.exec(text); m !== null; m = HEAD.exec(text)) {
    const length = IBAN_LENGTH[m[1]!.toUpperCase()];
    if (length === undefined) continue;
    const end = accountEnd(text, m.index + m[0].length, length - 4);
    if (end < 0) continue;
    const compact = text.slice(m.index, end).replaceAll(' ', '');
    if (!ibanValid(compact)) continue;
    spans.push({ kind: 'iban', start: m.index, end });
    HEAD.lastIndex = end;
  }
  return spans;
}

// Where the account part of `want` characters that starts at `from` ends, or -1 when the text
// there is not written as an IBAN: solid, or in groups of four with single spaces, and not
// running on into a longer word or number.
function accountEnd(text: string, from: number, want: number): number {
  let i = from;
  let got = 0;
  let group = 0;
  let grouped = false;
  if (text[i] === ' ') {
    grouped = true;
    i++;
  }
  while (got < want && i < text.length) {
    const ch = text[i]!;
    if (ALNUM.test(ch)) {
      got++;
      group++;
      i++;
    } else if (ch === ' ' && group === 4 && grouped && i + 1 < text.length && ALNUM.test(text[i + 1]!)) {
      group = 0;
      i++;
    } else break;
  }
  if (got < want) return -1;
  const next = text[i];
  if (next !== undefined && (ALNUM.test(next) || (/[.,\-/:]/.test(next) && /\d/.test(text[i + 1] ?? '')))) return -1;
  return i;
}
