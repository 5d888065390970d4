// What one rule's evaluations came to, counted: groups and periods judged, how they came out, and
// what was skipped and why, with the lowest and highest volume and expected value seen. A live run
// gives it for its one period, a backtest for its range. Pure.

import type { Evaluation } from './evaluate.js';
import type { Reason } from './judge.js';
import type { Period } from './periods.js';
import type { Rule } from './rules.js';

/** What a rule's run or replay judged: enough to say why a rule that never fired stayed silent. */
export interface RuleSummary {
  rule: string;
  /** hour, day or week */
  period: Period;
  periods: number;
  /** group × period evaluations */
  evaluations: number;
  /** groups seen in any period, and of those the ones judged in at least one */
  groups: number;
  groups_judged: number;
  /** evaluations judged ok, warn or error */
  judged: number;
  ok: number;
  warn: number;
  error: number;
  /** of the ok ones: a bound crossed, but the counts behind it call it chance (`confidence`) */
  chance: number;
  /** evaluations skipped, by why: volume below min_volume, too little history, expected value below min_expected, a space not usually active, no value */
  skipped: Record<Exclude<Reason, 'chance'>, number>;
  /** the rule's volume column, its min_volume, and the lowest and highest volume any group had in a period; null without a volume column */
  volume: { column: string; min_volume: number; lowest: number | null; highest: number | null } | null;
  /** the rule's min_expected (change rules), and the lowest and highest expected value seen; null for other kinds */
  expected: { min_expected: number; lowest: number | null; highest: number | null } | null;
}

export function summarise(rule: Rule, periods: number, evaluations: readonly Evaluation[]): RuleSummary {
  const count = (f: (e: Evaluation) => boolean) => evaluations.filter(f).length;
  const range = (values: number[]) => ({ lowest: values.length ? Math.min(...values) : null, highest: values.length ? Math.max(...values) : null });
  const skipped = { volume: 0, history: 0, expected: 0, usual: 0, no_value: 0 };
  for (const e of evaluations) if (e.level === 'skipped') skipped[(e.reason ?? 'no_value') as keyof typeof skipped]++;
  return {
    rule: rule.name,
    period: rule.period,
    periods,
    evaluations: evaluations.length,
    groups: new Set(evaluations.map((e) => e.key)).size,
    groups_judged: new Set(evaluations.filter((e) => e.level !== 'skipped').map((e) => e.key)).size,
    judged: count((e) => e.level !== 'skipped'),
    ok: count((e) => e.level === 'ok'),
    warn: count((e) => e.level === 'warn'),
    error: count((e) => e.level === 'error'),
    chance: count((e) => e.level === 'ok' && e.reason === 'chance'),
    skipped,
    volume:
      rule.kind !== 'freshness' && rule.volumeColumn !== null
        ? { column: rule.volumeColumn, min_volume: rule.minVolume, ...range(evaluations.flatMap((e) => (e.volume === null ? [] : [e.volume]))) }
        : null,
    expected: rule.kind === 'change' ? { min_expected: rule.minExpected, ...range(evaluations.flatMap((e) => (e.expected === null ? [] : [e.expected]))) } : null,
  };
}
