// The simulator's conversations carry personal data a real caller gives (truth for the forget
// and retention tests): every datum the truth names is in the detail, in a form the detectors
// of src/redact catch (on voice calls often as said: digit words, "at … dot"); cards pass Luhn, IBANs mod-97; the order look-alike is never a card.
import { describe, expect, it } from 'vitest';
import { detectCards, detectPersonalData, ibanValid, luhnValid } from '../src/redact/index.js';
import { generateDataset } from '../src/simulator/index.js';

const NOW = new Date('2026-11-01T12:00:00Z');

describe('personal data in the simulated conversations', () => {
  const ds = generateDataset({ seed: 11, conversations: 400, now: NOW });
  const truths = ds.records.map((r) => ({ id: r.id, truth: ds.personalData(r.id)! }));

  it('puts names, phone numbers, e-mail addresses, cards and IBANs into text and tool calls', () => {
    const kinds = new Set(truths.flatMap((t) => t.truth.found.map((f) => f.kind)));
    expect([...kinds].sort()).toEqual(['card', 'email', 'iban', 'name', 'phone']);
    const phoneForms = new Set(truths.flatMap((t) => t.truth.found.filter((f) => f.kind === 'phone').map((f) => (f.value.startsWith('+') ? (f.value.includes(' ') ? 'intl' : 'e164') : 'national'))));
    expect([...phoneForms].sort()).toEqual(['e164', 'intl', 'national']);
    expect(truths.some((t) => t.truth.lookalike !== null)).toBe(true);
  });

  it('names only data the detail holds, each caught by the detectors, checksums valid', () => {
    for (const { id, truth } of truths) {
      const detail = JSON.stringify(ds.detail(id));
      for (const f of truth.found) {
        expect(detail).toContain(JSON.stringify(f.value).slice(1, -1));
        if (f.kind === 'name') continue;
        const spans = detectPersonalData(`… ${f.value} …`);
        expect(spans.map((s) => s.kind), `${f.kind} ${f.value}`).toEqual([f.kind]);
      }
      expect(luhnValid(truth.caller.card.replace(/ /g, ''))).toBe(true);
      expect(ibanValid(truth.caller.iban.replace(/ /g, ''))).toBe(true);
      if (truth.lookalike) {
        expect(luhnValid(truth.lookalike.replace(/ /g, ''))).toBe(false);
        expect(detectCards(`reference ${truth.lookalike}.`)).toEqual([]);
      }
    }
  });

  it('writes the data of many voice calls as said, in English and in German words', () => {
    const found = truths.flatMap((t) => t.truth.found);
    const said = (kind: string, re: RegExp) => found.filter((f) => f.kind === kind && !/\d/.test(f.value) && re.test(f.value)).length;
    expect(said('phone', /\b(?:one|two|three|four|five|six|seven|eight|nine)\b/)).toBeGreaterThanOrEqual(5);
    expect(said('phone', /\b(?:eins|zwei|drei|vier|fünf|sechs|sieben|acht|neun)\b/)).toBeGreaterThanOrEqual(5);
    // a card is given on few calls (paying by phone)
    expect(said('card', /./)).toBeGreaterThanOrEqual(1);
    expect(found.filter((f) => f.kind === 'email' && / at .* dot /.test(f.value)).length).toBeGreaterThanOrEqual(5);
    expect(found.filter((f) => f.kind === 'email' && / ät .* Punkt /.test(f.value)).length).toBeGreaterThanOrEqual(5);
    // only on calls: a chat is typed
    for (const { id, truth } of truths) {
      if (ds.detail(id)!.channel === 'chat') expect(truth.found.filter((f) => f.kind !== 'name' && !/\d/.test(f.value) && !f.value.includes('@'))).toEqual([]);
    }
  });

  it('has repeat callers: one phone number in several conversations', () => {
    const byPhone = new Map<string, number>();
    for (const { truth } of truths) if (truth.found.some((f) => f.kind === 'phone')) byPhone.set(truth.caller.phoneE164, (byPhone.get(truth.caller.phoneE164) ?? 0) + 1);
    expect(Math.max(...byPhone.values())).toBeGreaterThanOrEqual(3);
  });

  it('is deterministic from the seed', () => {
    const again = generateDataset({ seed: 11, conversations: 400, now: NOW });
    for (const { id, truth } of truths.slice(0, 50)) expect(again.personalData(id)).toEqual(truth);
  });
});
