// `alert --backtest`: every rule replayed over the stored history, period by period, each
// period's value computed from the stored conversations as a live run would have computed it,
// and the episodes that would have fired and cleared. Reads only; stores nothing.

import { loadSharedRelations } from '../reports/shared-relations.js';
import { withReadOnlyDatabase } from '../store/read-only.js';
import { latestClockSkewMs } from '../store/sync-runs.js';
import { Evaluator, type Evaluation } from './evaluate.js';
import { columnTerms, factsOf } from './facts.js';
import { isFiring } from './judge.js';
import { summarise, type RuleSummary } from './rule-summary.js';
import { summaryText } from './message.js';
import { windowsBetween, type Period, type Window } from './periods.js';
import type { ReportDefinition } from '../reports/catalog.js';
import type { Rule } from './rules.js';
import { readRules, type RulesSource } from './run.js';
import type { GroupLabels } from './values.js';

export interface BacktestEpisode {
  rule: string;
  labels: GroupLabels;
  /** the highest level reached */
  level: 'warn' | 'error';
  /** start of the first period that fired */
  fired_at: string;
  /** start of the first period judged ok again (or the group gone); null: still firing at the end */
  cleared_at: string | null;
  /** the period whose value went farthest past its bound: its start, value, bound, expected value and volume */
  worst_at: string;
  value: number | null;
  bound: number | null;
  /** a change's baseline or an anomaly's mean; for a threshold, the group's usual value (median of its ok periods before) */
  expected: number | null;
  volume: number | null;
  periods: number;
  /** that worst period in words, as a notification would have said it */
  summary: string;
}

export interface BacktestResult {
  from: string;
  to: string;
  rules: RuleSummary[];
  episodes: BacktestEpisode[];
}

export interface BacktestOptions extends RulesSource {
  dbPath: string;
  from: Date;
  now?: Date;
  lockTimeoutMs?: number;
  /** called after each rule is replayed */
  onRule?: (rule: Rule, periods: number) => void;
}

export async function backtestAlerts(options: BacktestOptions): Promise<BacktestResult> {
  const now = options.now ?? new Date();
  const { rules, catalog } = readRules(options);
  const shared = loadSharedRelations();
  return withReadOnlyDatabase(options.dbPath, { lockTimeoutMs: options.lockTimeoutMs }, async (db) => {
    // replayed up to the latest period complete on the server's clock, as a live run judges
    const serverClockAheadMs = await latestClockSkewMs(db);
    const to = new Date(now.getTime() + serverClockAheadMs);
    const evaluator = new Evaluator(db.connection, rules, catalog, shared, serverClockAheadMs);
    const result: BacktestResult = { from: options.from.toISOString(), to: to.toISOString(), rules: [], episodes: [] };
    const planned = rules.map((rule) => ({ rule, windows: windowsBetween(rule.period, options.from, to) }));
    evaluator.plan(planned);
    for (const { rule, windows } of planned) {
      const perWindow = await evaluator.evaluateAll(rule, windows);
      result.rules.push(summarise(rule, windows.length, perWindow.flat()));
      result.episodes.push(...episodesOf(rule, windows, perWindow, catalog));
      options.onRule?.(rule, windows.length);
    }
    return result;
  });
}

/** Ok periods of a group whose median is its usual value, as a live notification reads them (deliver.ts). */
const USUAL_PERIODS = 14;

type OpenEpisode = Omit<BacktestEpisode, 'summary'> & { distance: number; worst: Evaluation };

/** The episodes in a rule's evaluations, period after period, as the live state would open and close them. */
export function episodesOf(rule: Rule, windows: readonly Window[], perWindow: readonly Evaluation[][], catalog: readonly ReportDefinition[]): BacktestEpisode[] {
  const open = new Map<string, OpenEpisode>();
  const done: BacktestEpisode[] = [];
  const okValues = new Map<string, number[]>();
  const terms = columnTerms(rule, catalog);
  const finish = (episode: OpenEpisode, clearedAt: string | null) => {
    const { distance: _distance, worst, ...rest } = episode;
    const facts = factsOf(
      rule,
      terms,
      {
        status: 'firing',
        ruleName: rule.name,
        groupKey: worst.key,
        level: worst.level,
        firingValue: worst.value,
        bound: worst.bound,
        firingSince: new Date(episode.fired_at),
        resolvedAt: null,
        periodStart: worst.window.start,
        periodEnd: worst.window.end,
        value: worst.value,
        expected: episode.expected,
        volume: worst.volume,
      },
      { link: null, detectedAt: worst.window.end },
    );
    done.push({ ...rest, cleared_at: clearedAt, summary: summaryText(facts) });
  };
  windows.forEach((window, i) => {
    const start = window.start.toISOString();
    const byKey = new Map(perWindow[i]!.map((e) => [e.key, e]));
    for (const e of byKey.values()) {
      if (!isFiring(e.level)) continue;
      const distance = e.value !== null && e.bound !== null ? Math.abs(e.value - e.bound) : 0;
      const expected = e.expected ?? (rule.kind === 'threshold' ? median((okValues.get(e.key) ?? []).slice(-USUAL_PERIODS)) : null);
      const worst = { worst_at: start, value: e.value, bound: e.bound, expected, volume: e.volume, distance, worst: e };
      const episode = open.get(e.key);
      if (!episode) {
        open.set(e.key, { rule: rule.name, labels: e.labels, level: e.level as 'warn' | 'error', fired_at: start, cleared_at: null, periods: 1, ...worst });
        continue;
      }
      episode.periods++;
      if (e.level === 'error') episode.level = 'error';
      if (distance > episode.distance) Object.assign(episode, worst);
    }
    for (const e of byKey.values()) if (e.level === 'ok' && e.value !== null) okValues.set(e.key, [...(okValues.get(e.key) ?? []), e.value]);
    for (const [key, episode] of open) {
      const e = byKey.get(key);
      if (e && isFiring(e.level)) continue;
      finish(episode, start);
      open.delete(key);
    }
  });
  for (const episode of open.values()) finish(episode, null);
  return done.sort((a, b) => (a.fired_at < b.fired_at ? -1 : a.fired_at > b.fired_at ? 1 : 0));
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
