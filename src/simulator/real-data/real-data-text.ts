// Hard text for the real-data mode: strings real transcripts carry and careless clients break
// on (emoji sequences, right-to-left scripts, invisible and control characters, a 100,000
// character word, strings cut in the middle of a surrogate pair), and the rule a client applies
// to them: every lone surrogate becomes U+FFFD, everything else is kept as it is.

import type { ConversationDetail } from '../../api/types.js';
import { Rng, hashSeed } from '../random.js';

/** Each piece is one kind of hard text; all are well-formed UTF-16. */
export const HARD_PIECES = {
  emoji: 'Done 👩🏽‍💻 for the 👨‍👩‍👧, thanks 👍🏿🏳️‍🌈',
  arabic: 'مرحبا، أريد إرجاع الطلب رقم ٤٥',
  hebrew: 'שלום, ההזמנה שלי לא הגיעה',
  zeroWidth: 'zero\u200bwidth\u200djoiner\ufeffbom',
  lineSeparators: 'line\u2028separator\u2029paragraph',
  nul: 'nul\u0000inside',
  tabsCrlf: 'col\tcol\tcol\r\nnext line\r\n',
  quotes: 'she said "no", then \'yes\' \\ C:\\Users\\x \\"escaped\\"',
} as const;

/** A word of exactly 100,000 characters, the same every time. */
export const HUGE_WORD: string = 'Donaudampfschifffahrtsgesellschaft'.repeat(Math.ceil(100_000 / 34)).slice(0, 100_000);

/** Text cut after the high half of 😀: JSON.stringify writes it as the escape \ud83d. */
export const CUT_HIGH = 'and then the line was cut 😀'.slice(0, -1);
/** Text starting with the low half of 😀: JSON.stringify writes it as the escape \ude00. */
export const CUT_LOW = '😀 continued after the cut'.slice(1);

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether `s` has a lone surrogate. */
export function hasLoneSurrogate(s: string): boolean {
  LONE.lastIndex = 0;
  return LONE.test(s);
}

/** `s` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed). */
export function wellFormed(s: string): string {
  LONE.lastIndex = 0;
  return LONE.test(s) ? s.replace(LONE, '\ufffd') : s;
}

/** A deep copy of a JSON value with every string well-formed. */
export function wellFormedDeep<T>(value: T): T {
  if (typeof value === 'string') return wellFormed(value) as T;
  if (Array.isArray(value)) return value.map((v) => wellFormedDeep(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[wellFormed(k)] = wellFormedDeep(v);
    return out as T;
  }
  return value;
}

/** Whether any string of a JSON value has a lone surrogate. */
export function hasLoneSurrogateDeep(value: unknown): boolean {
  if (typeof value === 'string') return hasLoneSurrogate(value);
  if (Array.isArray(value)) return value.some((v) => hasLoneSurrogateDeep(v));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => hasLoneSurrogateDeep(v));
  return false;
}

/** How one conversation's text is made hard. */
export interface TextPlan {
  /** also serve strings cut mid-surrogate */
  loneSurrogates: boolean;
  /** where the pieces go in the transcript, as fractions of its length */
  spots: number[];
}

export function planText(seed: number, idx: number, loneSurrogates: boolean): TextPlan {
  const rng = new Rng(hashSeed(seed, idx, 0x7e8a));
  return { loneSurrogates, spots: Array.from({ length: 11 }, () => rng.next()) };
}

/** The summary with hard text around it; the list entry and the detail both carry it. */
export function hardSummary(summary: string, plan: TextPlan): string {
  const text = `${HARD_PIECES.emoji} ${summary} ${HARD_PIECES.arabic} ${HARD_PIECES.zeroWidth}\u2028${HARD_PIECES.quotes}`;
  return plan.loneSurrogates ? `${text} ${CUT_HIGH}` : text;
}

/**
 * Puts hard text into a served detail in place: the summary, transcript turns (one piece each,
 * the huge word in one of them) and the first tool call's input. Without a transcript
 * (confidential spaces) the transcript's pieces go into that tool input.
 */
export function applyHardTextToDetail(d: ConversationDetail, plan: TextPlan): void {
  if (typeof d.summary === 'string') d.summary = hardSummary(d.summary, plan);
  const pieces: string[] = [...Object.values(HARD_PIECES), HUGE_WORD];
  if (plan.loneSurrogates) pieces.push(CUT_HIGH, CUT_LOW);
  const turns = Array.isArray(d.transcript) ? d.transcript : [];
  const leftOver: string[] = [];
  pieces.forEach((piece, i) => {
    if (turns.length === 0) return void leftOver.push(piece);
    const turn = turns[Math.floor(plan.spots[i % plan.spots.length]! * turns.length)]!;
    // A cut low half must open the text to stay lone; everything else is appended.
    turn.text = piece === CUT_LOW ? `${piece} ${turn.text}` : `${turn.text} ${piece}`;
  });
  const call = d.tool_calls?.[0];
  if (!call) return;
  const note = [HARD_PIECES.emoji, HARD_PIECES.hebrew, HARD_PIECES.nul, HARD_PIECES.tabsCrlf, ...leftOver].join(' | ');
  const input = call.input_redacted;
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) call.input_redacted = { ...input, note };
  else if (typeof input === 'string') call.input_redacted = `${input} ${note}`;
  else call.input_redacted = { value: input, note };
}
