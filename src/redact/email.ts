// E-mail addresses as people type them and speech-to-text writes them once it has heard "at"
// and "dot" as symbols: a local part, "@", a domain with at least one dot and a top-level
// domain of letters. Spoken forms ("max dot weber at gmail dot com") are spoken-email.ts's.

import type { Span } from './spans.js';

// Local part: letters (any script), digits and _ % + - , with dots and apostrophes (o'brien)
// only inside; not glued to a word before it, so a "mailto:" prefix stays outside the span. The
// "@" may be percent-encoded (%40), as in a URL's query value. The domain's labels may not
// start or end with a hyphen; the TLD is 2–24 letters, so "x@y.z1" or "a@b.c" are not addresses.
const EMAIL =
  /(?<![\p{L}\p{N}._%+\-])[\p{L}\p{N}_%+\-]+(?:['.][\p{L}\p{N}_%+\-]+)*(?:@|%40)(?:[\p{L}\p{N}](?:[\p{L}\p{N}\-]*[\p{L}\p{N}])?\.)+\p{L}{2,24}(?![\p{L}\p{N}_\-]|\.[\p{L}\p{N}])/gu;

/** E-mail addresses in the text. */
export function detectEmails(text: string): Span[] {
  if (!text.includes('@') && !text.includes('%40')) return [];
  const spans: Span[] = [];
  EMAIL.lastIndex = 0;
  for (let m = EMAIL.exec(text); m !== null; m = EMAIL.exec(text)) {
    spans.push({ kind: 'email', start: m.index, end: m.index + m[0].length });
  }
  return spans;
}
