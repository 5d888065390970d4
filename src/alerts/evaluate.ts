// Evaluating rules: for one rule and one period, every group's value (from the stored
// conversations, through the rule's report or the freshness queries), the values of the periods
// it is compared with, and the judgement. A live run and a backtest both evaluate through here.

import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportDefinition } from '../reports/catalog.js';
import type { SharedRelation } from '../reports/shared-relations.js';
import { judgeAnomaly, judgeChange, judgeFreshness, judgeThreshold, type Level, type Reason } from './judge.js';
import { periodMs, previousWindows, type Window } from './periods.js';
import type { FreshnessRule, Rule, ValueRule } from './rules.js';
import { conversationFreshness, syncFreshness } from './freshness.js';
import { groupKey, groupValues, ReportRows, storedSpan, type GroupLabels, type GroupValue, type StoredSpan } from './values.js';

export interface Evaluation {
  rule: Rule;
  labels: GroupLabels;
  /** groupKey(labels) */
  key: string;
  window: Window;
  value: number | null;
  level: Level;
  /** why it was skipped, or why a crossing stayed ok (judge.ts) */
  reason: Reason | null;
  bound: number | null;
  expected: number | null;
  /** the group's volume column in the period (0 when absent), null without one */
  volume: number | null;
}

const WEEK_MS = 7 * 24 * 3_600_000;

export class Evaluator {
  private readonly rows: ReportRows;
  private span: StoredSpan | null = null;
  /** the reports each window is read by, from plan() */
  private readonly needs = new Map<string, Set<string>>();

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly rules: readonly Rule[],
    catalog: readonly ReportDefinition[],
    shared: readonly SharedRelation[],
    /** how far the server's clock runs ahead of this machine's: windows are on the server's, sync runs are timed on ours */
    private readonly serverClockAheadMs = 0,
  ) {
    this.rows = new ReportRows(connection, shared, new Map(catalog.map((r) => [r.name, r])));
  }

  /**
   * Says which windows each rule will be evaluated over, before the first evaluation: each window's
   * reports then run together, once, and a window only a history reads runs only the reports that
   * read it (not every report of the period).
   */
  plan(evaluations: readonly { rule: Rule; windows: readonly Window[] }[]): void {
    for (const { rule, windows } of evaluations) {
      if (rule.kind === 'freshness') continue;
      for (const window of windows) {
        for (const w of [window, ...historyWindows(rule, window)]) {
          const key = windowKey(w);
          this.needs.set(key, (this.needs.get(key) ?? new Set()).add(rule.report));
        }
      }
    }
  }

  /** Every group's evaluation of `rule` over `window`, sorted by group. */
  async evaluate(rule: Rule, window: Window): Promise<Evaluation[]> {
    return (await this.evaluateAll(rule, [window]))[0]!;
  }

  /** The evaluations of `rule` over each of `windows`, in order: what a live run of each would have judged. */
  async evaluateAll(rule: Rule, windows: readonly Window[]): Promise<Evaluation[][]> {
    const out = rule.kind === 'freshness' ? await this.freshness(rule, windows) : await this.valuesAll(rule, windows);
    return out.map((evaluations) => evaluations.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  }

  private async valuesAll(rule: ValueRule, windows: readonly Window[]): Promise<Evaluation[][]> {
    const out: Evaluation[][] = [];
    for (const window of windows) out.push(await this.values(rule, window));
    return out;
  }

  private async values(rule: ValueRule, window: Window): Promise<Evaluation[]> {
    const span = (this.span ??= await storedSpan(this.connection, this.serverClockAheadMs));
    const current = await this.groups(rule, window);
    // one window at a time: each creates the shared relations its reports read on this connection
    const windows = historyWindows(rule, window);
    const before: Map<string, GroupValue>[] = [];
    for (const w of windows) before.push(await this.groups(rule, w));
    // A count that fell to nothing has no row: with sum, a group missing from a period the
    // database covers (after its first conversation, up to its last sync) counts as 0, even when
    // no group has a row (a day without any conversation). Outside that span it has no value.
    const countLike = rule.aggregate === 'sum';
    const covered = (w: Window) => countLike && w.end.getTime() > span.first && w.end.getTime() <= span.until;
    const keys = new Set(current.keys());
    if (rule.kind !== 'threshold' && covered(window)) for (const b of before) for (const k of b.keys()) keys.add(k);
    const out: Evaluation[] = [];
    for (const key of keys) {
      const now = current.get(key);
      const labels = now?.labels ?? before.find((b) => b.has(key))!.get(key)!.labels;
      const value = now ? now.value : 0;
      const volume = rule.volumeColumn === null ? null : (now?.volume ?? 0);
      const history = before.map((b, i) => b.get(key)?.value ?? (covered(windows[i]!) ? 0 : null));
      const historyVolumes = before.map((b, i) => b.get(key)?.volume ?? (covered(windows[i]!) ? 0 : null));
      const judgement =
        volume !== null && volume < rule.minVolume
          ? { level: 'skipped' as const, reason: 'volume' as const, bound: null, expected: null }
          : rule.kind === 'threshold'
            ? judgeThreshold(rule, value, volume)
            : rule.kind === 'change'
              ? judgeChange(rule, value, history, volume)
              : judgeAnomaly(rule, value, history, volume, historyVolumes);
      out.push({ rule, labels, key, window, value, volume, ...judgement, reason: judgement.reason ?? null });
    }
    return out;
  }

  private async groups(rule: ValueRule, window: Window): Promise<Map<string, GroupValue>> {
    const together = this.needs.get(windowKey(window)) ?? [rule.report];
    return groupValues(rule, await this.rows.rows(rule.report, window, [...together]));
  }

  private async freshness(rule: FreshnessRule, windows: readonly Window[]): Promise<Evaluation[][]> {
    const ends = windows.map((w) => w.end);
    const skew = this.serverClockAheadMs;
    const values =
      rule.of === 'conversations'
        ? await conversationFreshness(this.connection, ends)
        : (await syncFreshness(this.connection, ends.map((e) => new Date(e.getTime() - skew)))).map((v) => ({ ...v, end: v.end + skew }));
    const byEnd = new Map<number, Evaluation[]>(windows.map((w) => [w.end.getTime(), []]));
    for (const v of values) {
      const window = windows.find((w) => w.end.getTime() === v.end)!;
      const labels = { space: v.space };
      const usual = rule.of === 'sync' || v.recent >= rule.usualMin;
      const judgement = judgeFreshness(rule, v.hours, usual);
      byEnd.get(v.end)!.push({ rule, labels, key: groupKey(labels), window, value: v.hours, volume: null, ...judgement, reason: judgement.reason ?? null });
    }
    return windows.map((w) => byEnd.get(w.end.getTime())!);
  }
}

function windowKey(w: Window): string {
  return `${w.start.toISOString()}/${w.end.toISOString()}`;
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
