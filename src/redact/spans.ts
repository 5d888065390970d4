// What a detector finds: a typed range of the text. Detectors never edit text; redact-text.ts
// merges their spans and writes the placeholders, so each detector can be tested on its own.

/** The kinds of personal data convoduck recognises, each with its placeholder `[kind]`. */
export const PERSONAL_KINDS = ['email', 'phone', 'card', 'iban'] as const;
export type PersonalKind = (typeof PERSONAL_KINDS)[number];

/** A detected datum: `text.slice(start, end)` is what gets replaced. */
export interface Span {
  kind: PersonalKind;
  start: number;
  end: number;
}

// When two detectors claim overlapping text the more specific one wins: an e-mail's local part
// may hold digits, an IBAN's digits may look like a phone number, a card's groups too.
const PRIORITY: Record<PersonalKind, number> = { email: 0, iban: 1, card: 2, phone: 3 };

/** Spans sorted by start, overlaps resolved by kind priority, then by the longer span. */
export function resolveOverlaps(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  const ranked = [...spans].sort(
    (a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || b.end - b.start - (a.end - a.start) || a.start - b.start,
  );
  const kept: Span[] = [];
  for (const s of ranked) {
    if (!kept.some((k) => s.start < k.end && k.start < s.end)) kept.push(s);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** The text with each span replaced by its placeholder; spans must be sorted and disjoint. */
export function replaceSpans(text: string, spans: readonly Span[]): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${text.slice(at, s.start)}[${s.kind}]`;
    at = s.end;
  }
  return out + text.slice(at);
}

/** How many ASCII digits the text holds: the numeric detectors skip text with too few. */
export function countDigits(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
}
