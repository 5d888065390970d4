// The lines `alert` prints on stderr: one per firing alert, one per resolved alert, and for a
// backtest one per episode. The same facts are in --json on stdout.

import type { BacktestEpisode, BacktestResult, BacktestRuleSummary } from '../../alerts/backtest.js';
import type { DeliveryOutcome } from '../../alerts/deliver.js';
import type { AlertView } from '../../alerts/run.js';
import type { GroupLabels } from '../../alerts/values.js';

export function firingLine(a: AlertView): string {
  return `FIRING ${a.level} ${a.rule}: ${a.summary}\n`;
}

export function resolvedLine(a: AlertView): string {
  return `resolved ${a.rule}: ${a.summary.replace(/^Resolved: /, '')}\n`;
}

export function backtestLines(result: BacktestResult): string {
  const lines = result.rules.map((r) => {
    const episodes = result.episodes.filter((e) => e.rule === r.rule);
    const head = `${r.rule}: ${r.periods} periods replayed, would have fired ${episodes.length} ${episodes.length === 1 ? 'time' : 'times'}\n`;
    return head + `  ${judgedLine(r)}\n` + episodes.map(episodeLine).join('');
  });
  return lines.join('');
}

/** What the replay judged and skipped, and why: a rule that never fired says whether it could have. */
function judgedLine(r: BacktestRuleSummary): string {
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

function episodeLine(e: BacktestEpisode): string {
  const cleared = e.cleared_at === null ? 'still firing' : `cleared ${e.cleared_at}`;
  return `  ${e.level} ${groupText(e.labels).trim() || '(all)'}: fired ${e.fired_at}, ${cleared}; ${num(e.value)} against ${num(e.bound)}\n`;
}

function groupText(labels: GroupLabels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${v ?? '(none)'}`);
  return parts.length === 0 ? '' : ` ${parts.join(' ')}`;
}

function num(v: number | null): string {
  if (v === null) return '(none)';
  return Number.isInteger(v) ? String(v) : String(Math.round(v * 1000) / 1000);
}

export function deliveryLine(d: DeliveryOutcome): string {
  return `convoduck: the alert webhook did not take a notification (${d.failed}): ${d.pending} still owed, sent on the next run\n`;
}
