// The lines `alert` prints on stderr: one per firing alert, one per resolved alert, and for a
// backtest one per episode. The same facts are in --json on stdout.

import type { BacktestEpisode, BacktestResult } from '../../alerts/backtest.js';
import type { RuleSummary } from '../../alerts/rule-summary.js';
import type { DeliveryOutcome } from '../../alerts/deliver.js';
import type { AlertRunResult, AlertView } from '../../alerts/run.js';
import { instantText } from '../../alerts/message.js';
import type { Period } from '../../alerts/periods.js';

export function firingLine(a: AlertView): string {
  return `FIRING ${a.level} ${a.rule}: ${a.summary}\n`;
}

export function resolvedLine(a: AlertView): string {
  return `resolved ${a.rule}: ${a.summary.replace(/^Resolved: /, '')}\n`;
}

/** The run in one line: what was judged and skipped (and why), what fires, as of when. */
export function runLine(r: AlertRunResult): string {
  const judged = r.rules.reduce((n, x) => n + x.judged, 0);
  const skipped = r.rules.reduce((n, x) => n + x.evaluations - x.judged, 0);
  const reasons = (Object.keys(SKIP_WORDS) as (keyof typeof SKIP_WORDS)[])
    .map((k) => [r.rules.reduce((n, x) => n + x.skipped[k], 0), SKIP_WORDS[k]] as const)
    .filter(([n]) => n > 0)
    .map(([n, words]) => `${n} ${words}`);
  const at = `${r.as_of.slice(0, 16).replace('T', ' ')} UTC`;
  const groups = `${judged} ${judged === 1 ? 'group' : 'groups'} judged${skipped > 0 ? `, ${skipped} skipped (${reasons.join(', ')})` : ''}`;
  return `alert: ${r.rules.length} ${r.rules.length === 1 ? 'rule' : 'rules'} as of ${at}: ${groups}; ${r.firing.length} firing (${r.started.length} new), ${r.resolved.length} resolved\n`;
}

const SKIP_WORDS = {
  volume: 'with a volume below min_volume',
  history: 'with too little history',
  expected: 'with an expected value below min_expected',
  usual: 'in spaces below usual_min',
  no_value: 'without a value',
} as const;

export function backtestLines(result: BacktestResult): string {
  const lines = result.rules.map((r) => {
    const episodes = result.episodes.filter((e) => e.rule === r.rule);
    const head = `${r.rule}: ${r.periods} periods replayed, would have fired ${episodes.length} ${episodes.length === 1 ? 'time' : 'times'}\n`;
    return head + `  ${judgedLine(r)}\n` + episodes.map((e) => episodeLine(e, r.period)).join('');
  });
  return lines.join('');
}

/** What the replay judged and skipped, and why: a rule that never fired says whether it could have. */
function judgedLine(r: RuleSummary): string {
  const judged = `${r.groups_judged} of ${r.groups} groups judged in at least one period; ${r.judged} of ${r.evaluations} group-periods judged (${r.ok} ok${r.chance ? `, ${r.chance} of them past a bound by chance at these counts` : ''}, ${r.warn} warn, ${r.error} error)`;
  const why: string[] = [];
  const s = r.skipped;
  if (s.volume) {
    const v = r.volume!;
    why.push(`${s.volume} with ${v.column} below min_volume ${num(v.min_volume)} (${v.column} per group and period: lowest ${num(v.lowest)}, highest ${num(v.highest)})`);
  }
  if (s.history) why.push(`${s.history} with too little history before them`);
  if (s.expected) {
    const x = r.expected!;
    why.push(`${s.expected} with an expected value below min_expected ${num(x.min_expected)} (expected: lowest ${num(x.lowest)}, highest ${num(x.highest)})`);
  }
  if (s.usual) why.push(`${s.usual} in spaces below usual_min`);
  if (s.no_value) why.push(`${s.no_value} without a value`);
  const skipped = r.evaluations - r.judged;
  if (r.evaluations === 0) return 'no group had a row in any period: nothing to judge';
  return skipped === 0 ? `${judged}, none skipped` : `${judged}; ${skipped} skipped: ${why.join('; ')}`;
}

/** `error for 2 days, 2026-11-23 to 2026-11-25: <the worst period in words>` */
function episodeLine(e: BacktestEpisode, period: Period): string {
  const when = (iso: string) => instantText(period, new Date(iso));
  const span = e.cleared_at === null ? `from ${when(e.fired_at)}, still firing` : `${when(e.fired_at)} to ${when(e.cleared_at)}`;
  return `  ${e.level} for ${e.periods} ${period}${e.periods === 1 ? '' : 's'}, ${span}: ${e.summary}\n`;
}

function num(v: number | null): string {
  if (v === null) return '(none)';
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
}

export function deliveryLine(d: DeliveryOutcome): string {
  return `convoduck: the alert webhook did not take a notification (${d.failed}): ${d.pending} still owed, sent on the next run\n`;
}
