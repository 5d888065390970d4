// The detectors against the labelled corpus (test/corpus/personal-data): the figures #27 asks
// for — recall ≥ 0.99 per structured kind and not one placeholder on a look-alike.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectPersonalData, PERSONAL_KINDS, redactText } from '../../src/redact/index.js';
import { expectedRedaction, parseLabelled, scoreCorpus } from '../../src/redact/labelled.js';

const dir = new URL('../corpus/personal-data/', import.meta.url);
const lines = readdirSync(dir)
  .filter((f) => f.endsWith('.tsv'))
  .sort()
  .flatMap((f) => parseLabelled(readFileSync(new URL(f, dir), 'utf8'), f));
const score = scoreCorpus(lines, (text) => detectPersonalData(text));

describe('the labelled corpus', () => {
  it('is several hundred lines of English and German with every kind and many look-alikes', () => {
    expect(lines.filter((l) => l.lang === 'en').length).toBeGreaterThan(300);
    expect(lines.filter((l) => l.lang === 'de').length).toBeGreaterThan(300);
    for (const kind of PERSONAL_KINDS) expect(score.byKind[kind].truth, kind).toBeGreaterThanOrEqual(200);
    expect(Object.values(score.lookalikes).reduce((a, b) => a + b, 0)).toBeGreaterThan(1000);
  });

  it.each(PERSONAL_KINDS)('finds %s with recall ≥ 0.99', (kind) => {
    const missed = score.errors.filter((e) => e.problem === `missed ${kind}`);
    expect(score.byKind[kind].recall, JSON.stringify(missed, null, 1)).toBeGreaterThanOrEqual(0.99);
  });

  it('puts no placeholder on any look-alike', () => {
    expect(score.touched).toEqual([]);
  });

  it('finds nothing that is not labelled', () => {
    expect(score.errors.filter((e) => e.problem.startsWith('false'))).toEqual([]);
  });

  it('redactText writes every line as labelled', () => {
    const wrong = lines
      .filter((l) => redactText(l.text) !== expectedRedaction(l))
      .map((l) => ({ where: l.where, got: redactText(l.text), want: expectedRedaction(l) }));
    expect(wrong).toEqual([]);
  });
});
