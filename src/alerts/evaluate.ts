// Evaluating rules: for one rule and one period, every group's value (from the stored
// conversations, through the rule's report or the freshness queries), the values of the periods
// it is compared with, and the judgement. A live run and a backtest both evaluate through here.

import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportDefinition } from '../reports/catalog.js';
import type { SharedRelation } from '../reports/shared-relations.js';
import { judgeAnomaly, judgeChange, judgeFreshness, judgeThreshold, type Level } from './judge.js';
import { periodMs, previousWindows, type Window } from './periods.js';
import type { FreshnessRule, Rule, ValueRule } from './rules.js';
import { conversationFreshness, groupKey, groupValues, ReportRows, syncFreshness, type GroupLabels, type GroupValue } from './values.js';

export interface Evaluation {
  rule: Rule;
  labels: GroupLabels;
  /** groupKey(labels) */
  key: string;
  window: Window;
  value: number | null;
  level: Level;
  bound: number | null;
  expected: number | null;
  /** the rule's volume column for the group (0 when it had no row); null without one */
  volume: number | null;
}

const WEEK_MS = 7 * 24 * 3_600_000;

export class Evaluator {
  private readonly rows: ReportRows;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly rules: readonly Rule[],
    catalog: readonly ReportDefinition[],
    shared: readonly SharedRelation[],
  ) {
    this.rows = new ReportRows(connection, shared, new Map(catalog.map((r) => [r.name, r])));
  }

  /** Every group's evaluation of `rule` over `window`, sorted by group. */
  async evaluate(rule: Rule, window: Window): Promise<Evaluation[]> {
    const out = rule.kind === 'freshness' ? await this.freshness(rule, window) : await this.values(rule, window);
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private async values(rule: ValueRule, window: Window): Promise<Evaluation[]> {
    const current = await this.groups(rule, window);
    // one window at a time: each creates the shared relations its reports read on this connection
    const before: Map<string, GroupValue>[] = [];
    for (const w of historyWindows(rule, window)) before.push(await this.groups(rule, w));
    // A count that fell to nothing has no row: with sum, a group missing from a period that has
    // rows of other groups counts as 0. A period without any row (before the history starts) has no value.
    const zeroIfMissing = (m: ReadonlyMap<string, GroupValue>) => (rule.aggregate === 'sum' && m.size > 0 ? 0 : null);
    const keys = new Set(current.keys());
    if (rule.aggregate === 'sum' && rule.kind !== 'threshold' && current.size > 0) for (const b of before) for (const k of b.keys()) keys.add(k);
    const out: Evaluation[] = [];
    for (const key of keys) {
      const now = current.get(key);
      const labels = now?.labels ?? before.find((b) => b.has(key))!.get(key)!.labels;
      const value = now ? now.value : 0;
      const history = before.map((b) => b.get(key)?.value ?? zeroIfMissing(b));
      const tooSmall = rule.volumeColumn !== null && (now?.volume ?? 0) < rule.minVolume;
      const judgement = tooSmall
        ? { level: 'skipped' as const, bound: null, expected: null }
        : rule.kind === 'threshold'
          ? judgeThreshold(rule, value)
          : rule.kind === 'change'
            ? judgeChange(rule, value, history)
            : judgeAnomaly(rule, value, history);
      out.push({ rule, labels, key, window, value, volume: rule.volumeColumn === null ? null : (now?.volume ?? 0), ...judgement });
    }
    return out;
  }

  private async groups(rule: ValueRule, window: Window): Promise<Map<string, GroupValue>> {
    const together = this.rules.filter((r): r is ValueRule => r.kind !== 'freshness' && r.period === rule.period).map((r) => r.report);
    return groupValues(rule, await this.rows.rows(rule.report, window, together));
  }

  private async freshness(rule: FreshnessRule, window: Window): Promise<Evaluation[]> {
    const values = rule.of === 'conversations' ? await conversationFreshness(this.connection, window.end) : await syncFreshness(this.connection, window.end);
    return values.map((v) => {
      const labels = { space: v.space };
      const usual = rule.of === 'sync' || v.recent >= rule.usualMin;
      return { rule, labels, key: groupKey(labels), window, value: v.hours, volume: null, ...judgeFreshness(rule, v.hours, usual) };
    });
  }
}

/** The periods a value is compared with: the previous ones, or the same slot of earlier weeks. */
export function historyWindows(rule: ValueRule, window: Window): Window[] {
  if (rule.kind === 'threshold') return [];
  const n = rule.kind === 'change' ? rule.periods : rule.history;
  if (!rule.seasonal || rule.period === 'week') return previousWindows(rule.period, window, n);
  const length = periodMs(rule.period);
  return Array.from({ length: n }, (_, i) => {
    const start = window.start.getTime() - (n - i) * WEEK_MS;
    return { start: new Date(start), end: new Date(start + length) };
  });
}
