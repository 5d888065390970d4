// forget --match across written and spoken forms (#48): a number or address given one way is found
// written the other way, and everyday small numbers or another number are not taken for it.
import { describe, expect, it } from 'vitest';
import { parseMatch, textHolds } from '../../src/erase/match.js';

describe('forget --match, written and said', () => {
  it('finds a typed number said in words, in English and German, with or without the country code', () => {
    const target = parseMatch('+14155550198');
    expect(textHolds(target, 'my number is four one five, five five five, zero one nine eight')).toBe(true);
    expect(textHolds(target, 'it is 4 1 5 5 5 5 0 1 9 8')).toBe(true);
    expect(textHolds(target, 'plus one four one five five double five oh one nine eight')).toBe(true);
    expect(textHolds(target, 'my number is four one five, five five five, zero one nine nine')).toBe(false);
    expect(textHolds(target, 'I have two or three questions, five minutes, order number is twelve')).toBe(false);
    const german = parseMatch('+49 151 23456789');
    expect(textHolds(german, 'meine Nummer ist null eins fünf eins, zwei drei vier fünf sechs sieben acht neun')).toBe(true);
    expect(textHolds(german, 'das ist null eins fünf eins, dreiundzwanzig, fünfundvierzig, siebenundsechzig, neunundachtzig')).toBe(true);
  });

  it('takes a --match said in words, and finds the number typed', () => {
    const target = parseMatch('four one five, five five five, zero one nine eight');
    expect(target).toEqual(parseMatch('(415) 555-0198'));
    expect(textHolds(target, 'call me at +1 (415) 555-0198')).toBe(true);
    expect(() => parseMatch('two or three questions')).toThrow(/neither a phone number nor an e-mail address/);
  });

  it('finds an e-mail address said aloud, and takes one said as --match', () => {
    const target = parseMatch('john.smith@example.com');
    expect(textHolds(target, 'email is john dot smith at example dot com')).toBe(true);
    expect(textHolds(target, 'email is jane dot smith at example dot com')).toBe(false);
    expect(parseMatch('max punkt weber ät web punkt de')).toEqual(parseMatch('max.weber@web.de'));
  });
});
