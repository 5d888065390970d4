// Rules that know their counts (src/alerts/chance.ts, judge.ts): the tail probabilities against
// sums of the probability mass written out, and what a rule with `confidence` fires on and
// calls chance at small and large volumes.
import { describe, expect, it } from 'vitest';
import { chanceOf } from '../../src/alerts/chance.js';
import { judgeAnomaly, judgeChange, judgeThreshold } from '../../src/alerts/judge.js';
import type { AnomalyRule, ChangeRule, ThresholdRule } from '../../src/alerts/rules.js';

const choose = (n: number, k: number): number => (k === 0 ? 1 : (choose(n, k - 1) * (n - k + 1)) / k);
const binomial = (k: number, n: number, p: number) => choose(n, k) * p ** k * (1 - p) ** (n - k);
const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
const poisson = (k: number, l: number) => (Math.exp(-l) * l ** k) / factorial(k);
const sum = (from: number, to: number, f: (i: number) => number) => Array.from({ length: to - from + 1 }, (_, i) => f(from + i)).reduce((a, b) => a + b, 0);

const common = { name: 'r', line: 1, period: 'day' as const, description: '', runbookUrl: null, report: 'x', column: 'c', group: [], where: {}, aggregate: 'sum' as const, volumeColumn: 'n', minVolume: 0 };

describe('chanceOf', () => {
  it('is the binomial tail of a rate over its volume, on the side of the value', () => {
    expect(chanceOf(10 / 16, 0.1, 16)).toBeCloseTo(sum(10, 16, (k) => binomial(k, 16, 0.1)), 12);
    expect(chanceOf(1 / 20, 0.4, 20)).toBeCloseTo(sum(0, 1, (k) => binomial(k, 20, 0.4)), 12);
    expect(chanceOf(0.05, 0.1, 20)).toBeCloseTo(sum(0, 1, (k) => binomial(k, 20, 0.1)), 12);
    expect(chanceOf(0.12, 0.1, 20)).toBe(1);
    expect(chanceOf(1, 0.1, 0)).toBe(1);
  });

  it('is the Poisson tail of a count without a volume', () => {
    expect(chanceOf(3, 24, null)).toBeCloseTo(sum(0, 3, (k) => poisson(k, 24)), 12);
    expect(chanceOf(0, 6, null)).toBeCloseTo(Math.exp(-6), 12);
    expect(chanceOf(12, 5, null)).toBeCloseTo(1 - sum(0, 11, (k) => poisson(k, 5)), 10);
  });
});

describe('a rule with confidence', () => {
  const anomaly: AnomalyRule = { ...common, kind: 'anomaly', history: 14, seasonal: false, minPoints: 7, direction: 'up', warnZ: 3.5, errorZ: 5, floor: 0.45, confidence: 0.999 };

  it('judges a rate against the pooled history at its own volume: a quiet day of 1 of 1 does not hide a jump', () => {
    const history = [0, 0.25, 0, 0, 1, 0, 0.125, 0, 0.1];
    const volumes = [6, 8, 7, 10, 1, 6, 8, 7, 10];
    expect(judgeAnomaly({ ...anomaly, confidence: null }, 1, history, 7, volumes).level).toBe('ok');
    const j = judgeAnomaly(anomaly, 1, history, 7, volumes);
    expect(j.level).toBe('error');
    expect(j.expected!).toBeCloseTo((0 * 6 + 2 + 0 + 0 + 1 + 0 + 1 + 0 + 1 + 0.5) / (63 + 1), 6);
  });

  it('calls a crossing on few counts chance, and a large one on many counts not', () => {
    const history = Array(10).fill(0.1);
    const volumes = Array(10).fill(20);
    expect(judgeAnomaly(anomaly, 1, history, 3, volumes)).toMatchObject({ level: 'ok', reason: 'chance' });
    expect(judgeAnomaly(anomaly, 0.6, history, 200, volumes).level).toBe('error');
  });

  it('fires a threshold only when the counts put the rate past the bound', () => {
    const rule: ThresholdRule = { ...common, kind: 'threshold', warnAbove: 0.4, errorAbove: 0.6, warnBelow: null, errorBelow: null, confidence: 0.99 };
    expect(judgeThreshold(rule, 3 / 4, 4)).toMatchObject({ level: 'ok', reason: 'chance' });
    expect(judgeThreshold(rule, 1, 10)).toMatchObject({ level: 'error', bound: 0.6 });
    expect(judgeThreshold(rule, 0.55, 200)).toMatchObject({ level: 'warn', bound: 0.4 });
  });

  it('fires a drop of a count only when it is not chance at the expected count', () => {
    const rule: ChangeRule = { ...common, volumeColumn: null, kind: 'change', against: 'average', periods: 4, seasonal: true, direction: 'down', relative: true, warn: 0.5, error: 0.75, minExpected: 3, confidence: 0.99 };
    expect(judgeChange(rule, 0, [5, 6, 7, 6])).toMatchObject({ level: 'error', expected: 6 });
    expect(judgeChange(rule, 1, [2, 3, 4, 3])).toMatchObject({ level: 'ok', reason: 'chance' });
    expect(judgeChange(rule, 3, [20, 24, 28, 24])).toMatchObject({ level: 'error', expected: 24 });
    expect(judgeChange(rule, 1, [2, 2, 2, 2])).toMatchObject({ level: 'skipped', reason: 'expected' });
  });
});
