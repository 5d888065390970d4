// `alert --backtest`: every rule replayed over the stored history, period by period, each
// period's value computed from the stored conversations as a live run would have computed it,
// and the episodes that would have fired and cleared. Reads only; stores nothing.

import { loadSharedRelations } from '../reports/shared-relations.js';
import { withReadOnlyDatabase } from '../store/read-only.js';
import { Evaluator, type Evaluation } from './evaluate.js';
import { isFiring, type Reason } from './judge.js';
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

/** What a rule's replay judged: enough to say why a rule that never fired stayed silent. */
export interface BacktestRuleSummary {
  rule: string;
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

export interface BacktestResult {
  from: string;
  to: string;
  rules: BacktestRuleSummary[];
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
    const planned = rules.map((rule) => ({ rule, windows: windowsBetween(rule.period, options.from, now) }));
    evaluator.plan(planned);
    for (const { rule, windows } of planned) {
      const perWindow = await evaluator.evaluateAll(rule, windows);
      result.rules.push(summarise(rule, windows.length, perWindow.flat()));
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
      if (e && isFiring(e.level)) continue;
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

export function summarise(rule: Rule, periods: number, evaluations: readonly Evaluation[]): BacktestRuleSummary {
  const count = (f: (e: Evaluation) => boolean) => evaluations.filter(f).length;
  const range = (values: number[]) => ({ lowest: values.length ? Math.min(...values) : null, highest: values.length ? Math.max(...values) : null });
  const skipped = { volume: 0, history: 0, expected: 0, usual: 0, no_value: 0 };
  for (const e of evaluations) if (e.level === 'skipped') skipped[(e.reason ?? 'no_value') as keyof typeof skipped]++;
  return {
    rule: rule.name,
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
