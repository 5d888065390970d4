// Personal data as a transcript of speech writes it (#48), against the labelled spoken corpus
// (test/corpus/spoken): phone numbers, cards and IBANs said in English and German digit words,
// pairs, hundreds, "oh"/"null", "double"/"doppel", spaced digits and mixes; e-mail addresses said
// aloud; every line as written and with every labelled span enclosed, punctuated and at line
// breaks (labelled-variants.ts). Required: recall ≥ 0.99 per kind, and not one look-alike (the
// small numbers of everyday speech in lookalikes.tsv) touched.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectPersonalData, PERSONAL_KINDS, redactText } from '../../src/redact/index.js';
import { expectedRedaction, parseLabelled, scoreCorpus } from '../../src/redact/labelled.js';
import { wrappedVariants } from '../../src/redact/labelled-variants.js';

const dir = new URL('../corpus/spoken/', import.meta.url);
const lines = readdirSync(dir)
  .filter((f) => f.endsWith('.tsv'))
  .sort()
  .flatMap((f) => parseLabelled(readFileSync(new URL(f, dir), 'utf8'), f));
const score = scoreCorpus(lines, (text) => detectPersonalData(text));
const variants = wrappedVariants(lines);
const wrapped = scoreCorpus(variants, (text) => detectPersonalData(text));

describe('the spoken corpus', () => {
  it('holds every kind said in English and in German, and over a hundred everyday look-alikes', () => {
    for (const lang of ['en', 'de']) {
      for (const kind of PERSONAL_KINDS) {
        const said = lines.filter((l) => l.lang === lang).flatMap((l) => l.labels.filter((x) => x.role === 'datum' && x.label === kind));
        expect(said.length, `${lang} ${kind}`).toBeGreaterThanOrEqual(40);
      }
    }
    expect(Object.values(score.lookalikes).reduce((a, b) => a + b, 0)).toBeGreaterThan(150);
    const texts = lines.map((l) => l.text);
    expect(texts).toContain('call me on oh seven seven double oh nine hundred one two three');
    expect(texts).toContain('it is 4 1 5 5 5 5 0 1 9 8');
    expect(texts).toContain('das ist null eins fünf eins, dreiundzwanzig, fünfundvierzig, siebenundsechzig');
  });

  it.each(PERSONAL_KINDS)('finds %s with recall ≥ 0.99, as written and enclosed', (kind) => {
    const missed = score.errors.filter((e) => e.problem === `missed ${kind}`);
    expect(score.byKind[kind].recall, JSON.stringify(missed.slice(0, 10), null, 1)).toBeGreaterThanOrEqual(0.99);
    const missedWrapped = wrapped.errors.filter((e) => e.problem === `missed ${kind}`);
    expect(wrapped.byKind[kind].recall, JSON.stringify(missedWrapped.slice(0, 10), null, 1)).toBeGreaterThanOrEqual(0.99);
  });

  it('changes not one look-alike, as written or enclosed', () => {
    expect(score.touched).toEqual([]);
    expect(wrapped.touched.slice(0, 20), `${wrapped.touched.length} touched`).toEqual([]);
  });

  it('finds nothing that is not labelled', () => {
    expect(score.errors.filter((e) => e.problem.startsWith('false'))).toEqual([]);
    const found = wrapped.errors.filter((e) => e.problem.startsWith('false'));
    expect(found.slice(0, 20), `${found.length} false`).toEqual([]);
  });

  it('redactText writes every line as labelled', () => {
    const wrong = [...lines, ...variants]
      .filter((l) => redactText(l.text) !== expectedRedaction(l))
      .map((l) => ({ where: l.where, got: redactText(l.text), want: expectedRedaction(l) }));
    expect(wrong.slice(0, 20), `${wrong.length} wrong`).toEqual([]);
  });
});
