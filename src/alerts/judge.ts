// What one evaluated value means under its rule: ok, warn, error, or skipped (too little to
// judge), with the bound it crossed and the value expected. Pure functions of numbers.

import type { AnomalyRule, ChangeRule, Direction, FreshnessRule, ThresholdRule } from './rules.js';

export const LEVELS = ['ok', 'warn', 'error', 'skipped'] as const;
export type Level = (typeof LEVELS)[number];

export interface Judgement {
  level: Level;
  /** the value of the column the rule compared with (the crossed bound when firing, else the nearest) */
  bound: number | null;
  /** what the value was compared against: the baseline of a change, the mean of an anomaly */
  expected: number | null;
}

const SKIPPED: Judgement = { level: 'skipped', bound: null, expected: null };

export function judgeThreshold(rule: ThresholdRule, value: number | null): Judgement {
  if (value === null) return SKIPPED;
  if (rule.errorAbove !== null && value > rule.errorAbove) return { level: 'error', bound: rule.errorAbove, expected: null };
  if (rule.errorBelow !== null && value < rule.errorBelow) return { level: 'error', bound: rule.errorBelow, expected: null };
  if (rule.warnAbove !== null && value > rule.warnAbove) return { level: 'warn', bound: rule.warnAbove, expected: null };
  if (rule.warnBelow !== null && value < rule.warnBelow) return { level: 'warn', bound: rule.warnBelow, expected: null };
  return { level: 'ok', bound: rule.warnAbove ?? rule.errorAbove ?? rule.warnBelow ?? rule.errorBelow, expected: null };
}

/** `history`: the values of the periods before, oldest first (null where the group had none). */
export function judgeChange(rule: ChangeRule, value: number | null, history: readonly (number | null)[]): Judgement {
  const points = history.filter((v): v is number => v !== null);
  if (value === null || points.length === 0) return SKIPPED;
  const expected = rule.against === 'previous' ? points[points.length - 1]! : mean(points);
  if (expected < rule.minExpected || (rule.relative && expected === 0)) return { ...SKIPPED, expected };
  const scale = rule.relative ? Math.abs(expected) : 1;
  const change = (value - expected) / scale;
  const sign = rule.direction === 'up' ? 1 : rule.direction === 'down' ? -1 : change >= 0 ? 1 : -1;
  const boundOf = (t: number) => expected + sign * t * scale;
  for (const [level, t] of [['error', rule.error], ['warn', rule.warn]] as const) {
    if (t !== null && beyond(change, t, rule.direction)) return { level, bound: boundOf(t), expected };
  }
  const nearest = rule.warn ?? rule.error!;
  return { level: 'ok', bound: boundOf(nearest), expected };
}

/** `history`: the trailing values of the same slot, oldest first (null where the group had none). */
export function judgeAnomaly(rule: AnomalyRule, value: number | null, history: readonly (number | null)[]): Judgement {
  const points = history.filter((v): v is number => v !== null);
  if (value === null || points.length < rule.minPoints) return SKIPPED;
  const m = mean(points);
  const sd = Math.sqrt(points.reduce((s, p) => s + (p - m) ** 2, 0) / Math.max(1, points.length - 1));
  const distance = value - m;
  const z = sd > 0 ? distance / sd : distance === 0 ? 0 : Math.sign(distance) * Infinity;
  const sign = rule.direction === 'up' ? 1 : rule.direction === 'down' ? -1 : distance >= 0 ? 1 : -1;
  const boundOf = (t: number) => m + sign * Math.max(t * sd, rule.floor);
  if (Math.abs(distance) >= rule.floor) {
    for (const [level, t] of [['error', rule.errorZ], ['warn', rule.warnZ]] as const) {
      if (t !== null && beyond(z, t, rule.direction)) return { level, bound: boundOf(t), expected: m };
    }
  }
  return { level: 'ok', bound: boundOf(rule.warnZ ?? rule.errorZ!), expected: m };
}

/** `hours`: since the last conversation or successful sync; `usual`: whether the space usually has some. */
export function judgeFreshness(rule: FreshnessRule, hours: number | null, usual: boolean): Judgement {
  if (hours === null || !usual) return SKIPPED;
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
