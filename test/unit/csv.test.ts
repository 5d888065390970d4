// The CSV writer's rules (src/output/csv.ts): quoting, formula neutralisation, and floating-point
// text exactly as DuckDB's COPY writes it (the values below are what DuckDB 1.5 wrote).
import { describe, expect, it } from 'vitest';
import { csvField, floatText, neutralise } from '../../src/output/csv.js';

describe('csv', () => {
  it('writes a DOUBLE as DuckDB does', () => {
    const cases: [number, string][] = [
      [5, '5.0'], [0, '0.0'], [-0, '-0.0'], [1e15, '1000000000000000.0'], [1e16, '1e+16'],
      [123456789012345678, '1.2345678901234568e+17'], [1e21, '1e+21'], [0.0001, '0.0001'], [0.00001, '1e-05'],
      [1.5e-7, '1.5e-07'], [0.1, '0.1'], [-3, '-3.0'], [NaN, 'nan'], [Infinity, 'inf'], [-Infinity, '-inf'],
    ];
    expect(cases.map(([n]) => floatText(n))).toEqual(cases.map(([, text]) => text));
  });
  it('writes a FLOAT with the shortest digits a FLOAT reads back', () => {
    expect([0.1, 5, 16777217, 1e20].map((n) => floatText(Math.fround(n), true))).toEqual(['0.1', '5.0', '16777216.0', '1e+20']);
  });
  it('quotes what a reader could misread and neutralises formulas', () => {
    expect([null, '', 'a', 'a,b', 'a"b', ' x', 'x ', 'a\nb'].map(csvField)).toEqual(['', '""', 'a', '"a,b"', '"a""b"', '" x"', '"x "', '"a\nb"']);
    expect(['=1', '+1', '-1', '@a', '\tx', 'ok', null].map(neutralise)).toEqual(["'=1", "'+1", "'-1", "'@a", "'\tx", 'ok', null]);
  });
});
