// What one evaluated value means under its rule: ok, warn, error, or skipped (too little to
// judge), with the bound it crossed and the value expected. Pure functions of numbers.

import { chanceOf } from './chance.js';
import type { AnomalyRule, ChangeRule, Direction, FreshnessRule, ThresholdRule } from './rules.js';

export const LEVELS = ['ok', 'warn', 'error', 'skipped'] as const;
export type Level = (typeof LEVELS)[number];

/** Why a group was not judged, or why a crossing did not fire: data (columns), for the backtest's counts. */
export const REASONS = ['volume', 'history', 'expected', 'usual', 'no_value', 'chance'] as const;
export type Reason = (typeof REASONS)[number];

export interface Judgement {
  level: Level;
  /** skipped: too little volume, history, expected value, usual activity, or no value; ok: a crossing the counts call chance */
  reason?: Reason;
  /** the value of the column the rule compared with (the crossed bound when firing, else the nearest) */
  bound: number | null;
  /** what the value was compared against: the baseline of a change, the mean of an anomaly */
  expected: number | null;
}

const skipped = (reason: Reason, expected: number | null = null): Judgement => ({ level: 'skipped', reason, bound: null, expected });

/** `volume`: the rule's volume column for the group (null without one), for `confidence`. */
export function judgeThreshold(rule: ThresholdRule, value: number | null, volume: number | null = null): Judgement {
  if (value === null) return skipped('no_value');
  const crossings: [Level, number | null, boolean][] = [
    ['error', rule.errorAbove, true],
    ['error', rule.errorBelow, false],
    ['warn', rule.warnAbove, true],
    ['warn', rule.warnBelow, false],
  ];
  let chance = false;
  for (const [level, bound, above] of crossings) {
    if (bound === null || (above ? !(value > bound) : !(value < bound))) continue;
    // the counts must also say the value is past the bound, not merely a few events on the wrong side
    if (!significant(rule, value, bound, volume)) {
      chance = true;
      continue;
    }
    return { level, bound, expected: null };
  }
  return { level: 'ok', ...(chance ? { reason: 'chance' as const } : {}), bound: rule.warnAbove ?? rule.errorAbove ?? rule.warnBelow ?? rule.errorBelow, expected: null };
}

/** Whether `value` is past `reference` beyond chance at the rule's confidence (always, without one). */
function significant(rule: { confidence: number | null }, value: number, reference: number, volume: number | null): boolean {
  return rule.confidence === null || chanceOf(value, reference, volume) < 1 - rule.confidence;
}

/** `history`: the values of the periods before, oldest first (null where the group had none). */
export function judgeChange(rule: ChangeRule, value: number | null, history: readonly (number | null)[], volume: number | null = null): Judgement {
  const points = history.filter((v): v is number => v !== null);
  if (value === null) return skipped('no_value');
  if (points.length === 0) return skipped('history');
  const expected = rule.against === 'previous' ? points[points.length - 1]! : mean(points);
  if (expected < rule.minExpected || (rule.relative && expected === 0)) return skipped('expected', expected);
  const scale = rule.relative ? Math.abs(expected) : 1;
  const change = (value - expected) / scale;
  const sign = rule.direction === 'up' ? 1 : rule.direction === 'down' ? -1 : change >= 0 ? 1 : -1;
  const boundOf = (t: number) => expected + sign * t * scale;
  const nearest = rule.warn ?? rule.error!;
  for (const [level, t] of [['error', rule.error], ['warn', rule.warn]] as const) {
    if (t === null || !beyond(change, t, rule.direction)) continue;
    if (!significant(rule, value, expected, volume)) return { level: 'ok', reason: 'chance', bound: boundOf(nearest), expected };
    return { level, bound: boundOf(t), expected };
  }
  return { level: 'ok', bound: boundOf(nearest), expected };
}

/**
 * `history`: the trailing values of the same slot, oldest first (null where the group had none);
 * `historyVolumes`: their volumes, with `volume` today's. With `confidence` and a volume, the
 * value is a rate of counts: the mean is the history's pooled rate and the spread the binomial one
 * at today's volume, so a few quiet days of 1 of 1 neither widen the bound nor fire it.
 */
export function judgeAnomaly(
  rule: AnomalyRule,
  value: number | null,
  history: readonly (number | null)[],
  volume: number | null = null,
  historyVolumes: readonly (number | null)[] = [],
): Judgement {
  const points = history.filter((v): v is number => v !== null);
  if (value === null) return skipped('no_value');
  if (points.length < rule.minPoints) return skipped('history');
  let m = mean(points);
  let sd = Math.sqrt(points.reduce((s, p) => s + (p - m) ** 2, 0) / Math.max(1, points.length - 1));
  if (rule.confidence !== null && volume !== null && volume > 0) {
    let events = 0;
    let trials = 0;
    history.forEach((v, i) => {
      const n = historyVolumes[i] ?? null;
      if (v !== null && n !== null) (events += v * n), (trials += n);
    });
    // half an event over one more trial: a rate never seen is small, not impossible
    m = (events + 0.5) / (trials + 1);
    sd = Math.sqrt((m * (1 - m)) / volume);
  }
  const distance = value - m;
  const z = sd > 0 ? distance / sd : distance === 0 ? 0 : Math.sign(distance) * Infinity;
  const sign = rule.direction === 'up' ? 1 : rule.direction === 'down' ? -1 : distance >= 0 ? 1 : -1;
  const boundOf = (t: number) => m + sign * Math.max(t * sd, rule.floor);
  if (Math.abs(distance) >= rule.floor) {
    for (const [level, t] of [['error', rule.errorZ], ['warn', rule.warnZ]] as const) {
      if (t === null || !beyond(z, t, rule.direction)) continue;
      if (!significant(rule, value, m, volume)) return { level: 'ok', reason: 'chance', bound: boundOf(rule.warnZ ?? rule.errorZ!), expected: m };
      return { level, bound: boundOf(t), expected: m };
    }
  }
  return { level: 'ok', bound: boundOf(rule.warnZ ?? rule.errorZ!), expected: m };
}

/** `hours`: since the last conversation or successful sync; `usual`: whether the space usually has some. */
export function judgeFreshness(rule: FreshnessRule, hours: number | null, usual: boolean): Judgement {
  if (hours === null) return skipped('no_value');
  if (!usual) return skipped('usual');
  if (rule.errorHours !== null && hours >= rule.errorHours) return { level: 'error', bound: rule.errorHours, expected: null };
  if (rule.warnHours !== null && hours >= rule.warnHours) return { level: 'warn', bound: rule.warnHours, expected: null };
  return { level: 'ok', bound: rule.warnHours ?? rule.errorHours, expected: null };
}

function beyond(change: number, threshold: number, direction: Direction): boolean {
  if (direction === 'up') return change >= threshold;
  if (direction === 'down') return -change >= threshold;
  return Math.abs(change) >= threshold;
}

function mean(points: readonly number[]): number {
  return points.reduce((s, p) => s + p, 0) / points.length;
}

export function isFiring(level: Level): boolean {
  return level === 'warn' || level === 'error';
}
