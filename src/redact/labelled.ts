// The labelled corpus (test/corpus/personal-data/*.tsv) read and scored: one definition that the
// tests and the benchmark share, so the figure the bench prints is the one the test holds to.
//
// A corpus line is `lang<TAB>text`; in the text
//   {kind:…}      is a personal datum the detectors must replace (kind: email, phone, card, iban),
//   {~what:…}     is personal data they are documented not to catch (a local number, a name, an
//                 address); never counted against recall, and catching it is not wrong,
//   {!category:…} is a look-alike (uuid, date, order, amount, …) that must never be touched.
// Lines starting with # and blank lines are skipped.

import { PERSONAL_KINDS, type PersonalKind, type Span } from './spans.js';

export interface LabelledSpan {
  role: 'datum' | 'miss' | 'lookalike';
  /** a PersonalKind for data and misses, a category name for look-alikes */
  label: string;
  start: number;
  end: number;
}

export interface LabelledLine {
  where: string;
  lang: string;
  /** the text without the markup */
  text: string;
  labels: LabelledSpan[];
}

const MARK = /\{([~!]?)([a-z-]+):([^{}]*)\}/g;

/** The lines of one corpus file; throws on a malformed line, naming it. */
export function parseLabelled(source: string, file: string): LabelledLine[] {
  const out: LabelledLine[] = [];
  source.split('\n').forEach((raw, i) => {
    const where = `${file}:${i + 1}`;
    if (raw.trim() === '' || raw.startsWith('#')) return;
    const tab = raw.indexOf('\t');
    if (tab < 0) throw new Error(`${where}: no tab between language and text`);
    const marked = raw.slice(tab + 1);
    const labels: LabelledSpan[] = [];
    let text = '';
    let at = 0;
    for (const m of marked.matchAll(MARK)) {
      text += marked.slice(at, m.index);
      const role = m[1] === '~' ? 'miss' : m[1] === '!' ? 'lookalike' : 'datum';
      if (role === 'datum' && !(PERSONAL_KINDS as readonly string[]).includes(m[2]!)) {
        throw new Error(`${where}: unknown kind ${m[2]}`);
      }
      labels.push({ role, label: m[2]!, start: text.length, end: text.length + m[3]!.length });
      text += m[3];
      at = m.index + m[0].length;
    }
    text += marked.slice(at);
    if (/[{}]/.test(text)) throw new Error(`${where}: unbalanced markup`);
    out.push({ where, lang: raw.slice(0, tab), text, labels });
  });
  return out;
}

export interface KindScore {
  truth: number;
  found: number;
  truePositives: number;
  falsePositives: number;
  recall: number;
  precision: number;
}

export interface CorpusScore {
  lines: number;
  byKind: Record<PersonalKind, KindScore>;
  /** look-alikes by category, and the ones a detector touched (must be none) */
  lookalikes: Record<string, number>;
  touched: Array<{ where: string; category: string; text: string }>;
  /** documented misses by kind, and how many a detector caught anyway */
  misses: Record<string, { count: number; caught: number }>;
  /** every wrong answer, for a readable test failure */
  errors: Array<{ where: string; problem: string; text: string }>;
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }): boolean => a.start < b.end && b.start < a.end;

/** Precision and recall per kind of `detect` over the lines: a hit is an exact span of the right kind. */
export function scoreCorpus(lines: readonly LabelledLine[], detect: (text: string) => Span[]): CorpusScore {
  const byKind = Object.fromEntries(
    PERSONAL_KINDS.map((k) => [k, { truth: 0, found: 0, truePositives: 0, falsePositives: 0, recall: 1, precision: 1 }]),
  ) as Record<PersonalKind, KindScore>;
  const lookalikes: Record<string, number> = {};
  const misses: Record<string, { count: number; caught: number }> = {};
  const touched: CorpusScore['touched'] = [];
  const errors: CorpusScore['errors'] = [];
  for (const line of lines) {
    const found = detect(line.text);
    for (const l of line.labels) {
      if (l.role === 'datum') byKind[l.label as PersonalKind].truth++;
      else if (l.role === 'lookalike') lookalikes[l.label] = (lookalikes[l.label] ?? 0) + 1;
      else {
        const m = (misses[l.label] ??= { count: 0, caught: 0 });
        m.count++;
        if (found.some((s) => overlaps(s, l))) m.caught++;
      }
      if (l.role === 'datum' && !found.some((s) => s.kind === l.label && s.start === l.start && s.end === l.end)) {
        errors.push({ where: line.where, problem: `missed ${l.label}`, text: line.text.slice(l.start, l.end) });
      }
    }
    for (const s of found) {
      byKind[s.kind].found++;
      if (line.labels.some((l) => l.role === 'datum' && l.label === s.kind && l.start === s.start && l.end === s.end)) {
        byKind[s.kind].truePositives++;
        continue;
      }
      if (line.labels.some((l) => l.role === 'miss' && overlaps(s, l))) continue;
      byKind[s.kind].falsePositives++;
      errors.push({ where: line.where, problem: `false ${s.kind}`, text: line.text.slice(s.start, s.end) });
      for (const l of line.labels) {
        if (l.role === 'lookalike' && overlaps(s, l)) touched.push({ where: line.where, category: l.label, text: line.text.slice(l.start, l.end) });
      }
    }
  }
  for (const k of Object.values(byKind)) {
    k.recall = k.truth === 0 ? 1 : k.truePositives / k.truth;
    k.precision = k.truePositives + k.falsePositives === 0 ? 1 : k.truePositives / (k.truePositives + k.falsePositives);
  }
  return { lines: lines.length, byKind, lookalikes, touched, misses, errors };
}

/** The line as redactText must write it: each datum replaced by its placeholder. */
export function expectedRedaction(line: LabelledLine): string {
  let out = '';
  let at = 0;
  for (const l of line.labels.filter((x) => x.role === 'datum')) {
    out += `${line.text.slice(at, l.start)}[${l.label}]`;
    at = l.end;
  }
  return out + line.text.slice(at);
}
