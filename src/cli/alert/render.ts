// The lines `alert` prints on stderr: one per firing alert, one per resolved alert, and for a
// backtest one per episode. The same facts are in --json on stdout.

import type { BacktestEpisode, BacktestResult } from '../../alerts/backtest.js';
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
    return head + episodes.map(episodeLine).join('');
  });
  return lines.join('');
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
