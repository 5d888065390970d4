// `alert --backtest`: every rule replayed over the stored history, period by period, each
// period's value computed from the stored conversations as a live run would have computed it,
// and the episodes that would have fired and cleared. Reads only; stores nothing.

import { loadSharedRelations } from '../reports/shared-relations.js';
import { withReadOnlyDatabase } from '../store/read-only.js';
import { Evaluator, type Evaluation } from './evaluate.js';
import { isFiring } from './judge.js';
import { windowsBetween } from './periods.js';
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
  /** the value farthest past its bound, with that bound */
  value: number | null;
  bound: number | null;
  periods: number;
}

export interface BacktestResult {
  from: string;
  to: string;
  rules: { rule: string; periods: number; evaluations: number }[];
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
    const evaluator = new Evaluator(db.connection, rules, catalog, shared);
    const result: BacktestResult = { from: options.from.toISOString(), to: now.toISOString(), rules: [], episodes: [] };
    for (const rule of rules) {
      const windows = windowsBetween(rule.period, options.from, now);
      const perWindow: Evaluation[][] = [];
      for (const window of windows) perWindow.push(await evaluator.evaluate(rule, window));
      result.rules.push({ rule: rule.name, periods: windows.length, evaluations: perWindow.reduce((n, e) => n + e.length, 0) });
      result.episodes.push(...episodesOf(rule, windows.map((w) => w.start), perWindow));
      options.onRule?.(rule, windows.length);
    }
    return result;
  });
}

/** The episodes in a rule's evaluations, period after period, as the live state would open and close them. */
export function episodesOf(rule: Rule, starts: readonly Date[], perWindow: readonly Evaluation[][]): BacktestEpisode[] {
  const open = new Map<string, BacktestEpisode & { distance: number }>();
  const done: BacktestEpisode[] = [];
  starts.forEach((start, i) => {
    const byKey = new Map(perWindow[i]!.map((e) => [e.key, e]));
    for (const e of byKey.values()) {
      if (!isFiring(e.level)) continue;
      const distance = e.value !== null && e.bound !== null ? Math.abs(e.value - e.bound) : 0;
      const episode = open.get(e.key);
      if (!episode) {
        open.set(e.key, { rule: rule.name, labels: e.labels, level: e.level as 'warn' | 'error', fired_at: start.toISOString(), cleared_at: null, value: e.value, bound: e.bound, periods: 1, distance });
        continue;
      }
      episode.periods++;
      if (e.level === 'error') episode.level = 'error';
      if (distance > episode.distance) Object.assign(episode, { value: e.value, bound: e.bound, distance });
    }
    for (const [key, episode] of open) {
      const e = byKey.get(key);
      if (e && (isFiring(e.level) || e.level === 'skipped')) continue;
      done.push(finished(episode, start.toISOString()));
      open.delete(key);
    }
  });
  for (const episode of open.values()) done.push(finished(episode, null));
  return done.sort((a, b) => (a.fired_at < b.fired_at ? -1 : a.fired_at > b.fired_at ? 1 : 0));
}

function finished(episode: BacktestEpisode & { distance: number }, clearedAt: string | null): BacktestEpisode {
  const { distance: _distance, ...rest } = episode;
  return { ...rest, cleared_at: clearedAt };
}
