// An alert's facts (message.ts) from one evaluated period and its episode, for a notification, a
// line of a live run or a backtest's episode alike. How the rule's column reads comes from the
// report's own column documentation: a rate (shown as a percentage), and whether its volume
// column is the rate's denominator (so rate × volume is the count behind it). Pure.

import type { ReportDefinition } from '../reports/catalog.js';
import { headerColumns } from '../reports/sql-file.js';
import { fingerprintOf, type AlertFacts } from './message.js';
import type { Rule } from './rules.js';
import type { GroupLabels } from './values.js';

export interface ColumnTerms {
  isRate: boolean;
  /** the volume column is what the rate is a share of */
  volumeIsDenominator: boolean;
}

export function columnTerms(rule: Rule | undefined, catalog: readonly ReportDefinition[]): ColumnTerms {
  if (!rule || rule.kind === 'freshness') return { isRate: false, volumeIsDenominator: false };
  const header = catalog.find((r) => r.name === rule.report)?.header ?? '';
  const docs = headerColumns(header).find((c) => c.name === rule.column)?.description ?? '';
  const isRate = docs.includes('÷') || /_(rate|share)$/.test(rule.column);
  return { isRate, volumeIsDenominator: isRate && denominatorIs(docs, rule.volumeColumn) };
}

/** The count a rate is of its volume, when the volume is its denominator; else null. */
export function countBehind(terms: ColumnTerms, value: number | null, volume: number | null): number | null {
  return terms.volumeIsDenominator && value !== null && volume !== null ? Math.round(value * volume) : null;
}

/** A rate is a share of its volume column only when its documentation says `… ÷ VOLUME`. */
function denominatorIs(docs: string, volumeColumn: string | null): boolean {
  if (volumeColumn === null) return false;
  const denominator = /÷\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\(|$|,|;)/.exec(docs.trim());
  return denominator?.[1] === volumeColumn;
}

/** One period of an episode as evaluated: what the facts are about. */
export interface EpisodePeriod {
  status: 'firing' | 'resolved';
  ruleName: string;
  groupKey: string;
  /** the episode's level, value and bound (its latest firing period's) */
  level: string;
  firingValue: number | null;
  bound: number | null;
  firingSince: Date;
  resolvedAt: Date | null;
  periodStart: Date;
  periodEnd: Date;
  value: number | null;
  expected: number | null;
  volume: number | null;
}

export function factsOf(
  rule: Rule | undefined,
  terms: ColumnTerms,
  p: EpisodePeriod,
  context: { link: string | null; detectedAt: Date },
): AlertFacts {
  const report = rule && rule.kind !== 'freshness' ? rule : null;
  const volume = report?.volumeColumn ? p.volume : null;
  return {
    status: p.status,
    rule: p.ruleName,
    kind: rule?.kind ?? 'threshold',
    level: p.level,
    description: rule?.description ?? '',
    labels: JSON.parse(p.groupKey) as GroupLabels,
    report: report?.report ?? null,
    column: report?.column ?? null,
    freshnessOf: rule?.kind === 'freshness' ? rule.of : null,
    isRate: terms.isRate,
    volumeColumn: report?.volumeColumn ?? null,
    volume,
    count: countBehind(terms, p.value, volume),
    period: rule?.period ?? 'day',
    periodStart: p.periodStart,
    periodEnd: p.periodEnd,
    value: p.value,
    expected: p.expected,
    bound: p.bound,
    side: p.firingValue !== null && p.bound !== null && p.firingValue < p.bound ? 'below' : 'above',
    firingSince: p.firingSince,
    resolvedAt: p.status === 'resolved' ? p.resolvedAt : null,
    link: context.link,
    runbookUrl: rule?.runbookUrl ?? null,
    detectedAt: context.detectedAt,
    fingerprint: fingerprintOf(p.ruleName, p.groupKey),
  };
}
