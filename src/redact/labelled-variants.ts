// The labelled corpus rewritten the ways punctuation and line breaks surround a datum in real
// text: "call me (+49 30 1234567).", «max@web.de», a card number alone on a line. A detector
// that finds a number in a sentence but not in brackets fails quietly, so the test and the bench
// score every labelled span (data, look-alikes and documented misses alike) in each of these.

import type { LabelledLine, LabelledSpan } from './labelled.js';

/** Pairs that enclose a datum in chat and transcripts. */
export const WRAPPERS: ReadonlyArray<readonly [string, string]> = [
  ['(', ')'],
  ['[', ']'],
  ['<', '>'],
  ['"', '"'],
  ["'", "'"],
  ['«', '»'],
];
/** Punctuation that follows a datum directly. */
export const FOLLOWERS: readonly string[] = ['.', ',', ';', ':', '!', '?'];

type Piece = string | { label: LabelledSpan; value: string };

// the line as plain text and labelled values in order
function piecesOf(line: LabelledLine): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const label of [...line.labels].sort((a, b) => a.start - b.start)) {
    if (label.start > at) out.push(line.text.slice(at, label.start));
    out.push({ label, value: line.text.slice(label.start, label.end) });
    at = label.end;
  }
  if (at < line.text.length) out.push(line.text.slice(at));
  return out;
}

function assemble(where: string, lang: string, pieces: readonly Piece[]): LabelledLine {
  let text = '';
  const labels: LabelledSpan[] = [];
  for (const p of pieces) {
    if (typeof p === 'string') text += p;
    else {
      labels.push({ ...p.label, start: text.length, end: text.length + p.value.length });
      text += p.value;
    }
  }
  return { where, lang, text, labels };
}

const PLAIN: readonly [string, string] = ['', ''];

/**
 * Every line that holds a labelled span, rewritten: each span enclosed in each pair of WRAPPERS
 * (or none) and followed by each of FOLLOWERS (or nothing), in its sentence; and each span, enclosed
 * the same ways, ending the line, right after a line break, right before one, and (a datum or a
 * documented miss) starting the line. The labels move with their spans.
 */
export function wrappedVariants(lines: readonly LabelledLine[]): LabelledLine[] {
  const out: LabelledLine[] = [];
  for (const line of lines) {
    if (line.labels.length === 0) continue;
    const pieces = piecesOf(line);
    for (const [open, close] of [PLAIN, ...WRAPPERS]) {
      for (const follow of ['', ...FOLLOWERS]) {
        if (open === '' && follow === '') continue;
        const wrapped = pieces.map((p) => (typeof p === 'string' ? p : [open, p, `${close}${follow}`])).flat();
        out.push(assemble(`${line.where} ${open}…${close}${follow}`, line.lang, wrapped));
      }
      pieces.forEach((p, i) => {
        if (typeof p === 'string') return;
        const before = pieces.slice(0, i);
        const after = pieces.slice(i + 1);
        const self = [open, p, close];
        const tag = `${line.where} ${open}${p.value}${close}`;
        // a look-alike is one by the words before it ("order number 4111…"): it keeps them
        if (p.label.role !== 'lookalike') out.push(assemble(`${tag} starts the line`, line.lang, [...self, ...after]));
        out.push(assemble(`${tag} ends the line`, line.lang, [...before, ...self]));
        out.push(assemble(`${tag} after a line break`, line.lang, [...before, '\n', ...self, ...after]));
        out.push(assemble(`${tag} before a line break`, line.lang, [...before, ...self, '\n', ...after]));
      });
    }
  }
  return out;
}
