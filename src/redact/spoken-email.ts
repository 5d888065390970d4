// E-mail addresses said aloud, as a transcript writes them: "john dot smith at example dot com",
// "max punkt mustermann ät gmx punkt de", "sarah underscore connor at web dot de",
// "j o h n at example dot com", "anna Klammeraffe beispiel Punkt de". A local part, a spoken "at"
// and a domain of two or more labels joined by a spoken "dot", ending in a top-level domain of
// letters. A local part of one plain word said with a plain "at" needs a word such as "e-mail"
// or "address" shortly before it, or to start the line or sentence: "have a look at shop dot
// com" is no address.

import type { Span } from './spans.js';

const AT = String.raw`(?:at|ät|at[- ]sign|at-zeichen|klammeraffe|@)`;
const DOT = String.raw`(?:dot|punkt|\.)`;
const JOIN = String.raw`(?:dot|punkt|underscore|unterstrich|dash|hyphen|minus|bindestrich|strich)`;
// a word of the address, or its letters spelled out one by one ("j o h n"); typed dots, dashes
// and underscores may stand inside ("john.smith at example dot com")
const WORD = String.raw`(?:\p{L}(?: \p{L}\b){2,}|[\p{L}\p{N}](?:[\p{L}\p{N}_.\-]*[\p{L}\p{N}])?)`;
const LABEL = String.raw`(?:\p{L}(?: \p{L}\b){2,}|[\p{L}\p{N}](?:[\p{L}\p{N}\-]*[\p{L}\p{N}])?)`;
const SPOKEN_EMAIL = new RegExp(
  String.raw`(?<![\p{L}\p{N}_.\-]|\p{L}['’])(${WORD}(?: ${JOIN} ${WORD})*) ${AT} ((?:${LABEL}(?: (?:dash|minus|bindestrich) ${LABEL})* ${DOT} )+)(\p{L}{2,24})(?![\p{L}\p{N}_]| ${DOT} [\p{L}\p{N}])`,
  'giu',
);
/** Said before an address of one plain word: what tells "anna at web dot de" from a sentence. */
const CUE = /(?:e-?mail|mail|address|adresse|schreib|write|send|contact|kontakt)[^.!?]{0,24}$/i;
/** Words that stand before a plain "at" in everyday speech ("look at", "meet me at"): never a local part. */
const NOT_LOCAL = new Set(
  ('look looking looked arrive arrived stay staying meet me us him her them it you i we they is are was were be am ' +
    'call reach find see work home available online only just here there not good great shop buy sold live lives').split(' '),
);
const CUE_WINDOW = 40;
/** Only brackets, quotes and spaces since the line or sentence began. */
const STARTS = /(?:^|[\n.!?:;])[\s([{<"'«‹„“‘]*$/;
const JOINED = new RegExp(` ${JOIN} `, 'i');
// Cheap (ASCII boundaries, no Unicode mode): no spoken "dot" or no spoken "at" in the text, no
// address said in it.
const PRECHECK_AT = /\bat\b|ät\b|klammeraffe|@/i;
const PRECHECK_DOT = /\b(?:dot|punkt)\b/i;

// plain substring searches first: far faster than any regex over text that has none
function mayHoldDot(text: string): boolean {
  return text.includes('dot') || text.includes('unkt') || text.includes('Dot') || text.includes('DOT') || text.includes('UNKT');
}

/** A spoken address found: its span and the address it says, in lower case. */
export interface SpokenEmail extends Span {
  kind: 'email';
  address: string;
}

/** E-mail addresses said aloud in the text. */
export function detectSpokenEmails(text: string): SpokenEmail[] {
  if (!mayHoldDot(text) || !PRECHECK_DOT.test(text) || !PRECHECK_AT.test(text)) return [];
  const out: SpokenEmail[] = [];
  SPOKEN_EMAIL.lastIndex = 0;
  for (let m = SPOKEN_EMAIL.exec(text); m !== null; m = SPOKEN_EMAIL.exec(text)) {
    const local = m[1]!;
    const plain = !JOINED.test(local) && !/[ _.\-\d]/.test(local) && /^ at /i.test(m[0].slice(local.length, local.length + 4));
    const before = text.slice(Math.max(0, m.index - CUE_WINDOW), m.index);
    const said = CUE.test(before) || STARTS.test((m.index > CUE_WINDOW ? 'x' : '') + before);
    if (plain && (NOT_LOCAL.has(local.toLowerCase()) || !said)) {
      // the next try starts one word on: "look at shop dot com" may still hold "…, anna at …"
      SPOKEN_EMAIL.lastIndex = m.index + local.length;
      continue;
    }
    const address = `${spell(local)}@${spell(m[2]!)}${m[3]!}`.toLowerCase();
    out.push({ kind: 'email', start: m.index, end: m.index + m[0].length, address });
  }
  return out;
}

const SAID = /\s(dot|punkt|underscore|unterstrich|dash|hyphen|minus|bindestrich|strich)\s|(?<=\b\p{L}) (?=\p{L}\b)/giu;
const SYMBOL: Record<string, string> = {
  dot: '.', punkt: '.', underscore: '_', unterstrich: '_', dash: '-', hyphen: '-', minus: '-', bindestrich: '-', strich: '-',
};

// "john dot smith" → "john.smith", "j o h n" → "john"; "example dot " → "example."
function spell(said: string): string {
  return `${said} `.replace(SAID, (_m, word: string | undefined) => (word ? SYMBOL[word.toLowerCase()]! : '')).replace(/ (?:dot|punkt) $/i, '.').trim();
}
