// Alert state as rows: each evaluation kept in alert_evaluations (a period evaluated again
// replaces its rows), and each alert's episode in alert_states, opened when a group starts firing,
// updated while it fires, closed when an evaluation of a later period finds it ok or the group
// gone or too small to judge. An episode spans periods: firing since the start of its first, resolved at the start of
// the first period found ok. What changed is returned, for the lines printed and the notifications sent.

import type { Database } from '../store/database.js';
import type { Evaluation } from './evaluate.js';
import { isFiring, type Level } from './judge.js';
import type { Window } from './periods.js';
import type { Rule } from './rules.js';

export interface AlertState {
  rule: string;
  group_key: string;
  level: Level;
  value: number | null;
  bound: number | null;
  firing_since: Date;
  last_period_start: Date;
  resolved_at: Date | null;
  notified_firing_at: Date | null;
  notified_resolved_at: Date | null;
  notify_attempts: number;
}

export interface StateChanges {
  /** episodes that started firing in this run */
  started: AlertState[];
  /** episodes that were firing and were resolved in this run */
  resolved: AlertState[];
  /** every episode firing after this run */
  firing: AlertState[];
}

/** Stores one rule's evaluations of `window` and moves its alert states on. */
export async function recordEvaluations(
  db: Database,
  rule: Rule,
  window: Window,
  evaluations: readonly Evaluation[],
  now: Date,
  changes: StateChanges,
): Promise<void> {
  const start = window.start.toISOString();
  await db.run(`DELETE FROM alert_evaluations WHERE rule = ? AND period_start = ?::TIMESTAMPTZ AND period_end = ?::TIMESTAMPTZ`, [rule.name, start, window.end.toISOString()]);
  for (const e of evaluations) {
    await db.run(
      `INSERT INTO alert_evaluations (rule, group_key, period_start, period_end, value, expected, bound, level, evaluated_at, volume, reason)
       VALUES (?, ?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ, ?, ?, ?, ?, ?::TIMESTAMPTZ, ?, ?)`,
      [rule.name, e.key, start, window.end.toISOString(), e.value, e.expected, e.bound, e.level, now.toISOString(), e.volume, e.reason],
    );
  }
  const open = new Map((await openStates(db, rule.name)).map((s) => [s.group_key, s]));
  const byKey = new Map(evaluations.map((e) => [e.key, e]));
  for (const e of evaluations) {
    if (!isFiring(e.level)) continue;
    const state = open.get(e.key);
    if (state) {
      await db.run(
        `UPDATE alert_states SET level = ?, value = ?, bound = ?, last_period_start = greatest(last_period_start, ?::TIMESTAMPTZ)
         WHERE rule = ? AND group_key = ? AND resolved_at IS NULL`,
        [e.level, e.value, e.bound, start, rule.name, e.key],
      );
      continue;
    }
    // a period already judged (a run repeated within the period) opens nothing new
    const seen = await db.one(`SELECT 1 AS x FROM alert_states WHERE rule = ? AND group_key = ? AND last_period_start >= ?::TIMESTAMPTZ`, [rule.name, e.key, start]);
    if (seen) continue;
    await db.run(
      `INSERT INTO alert_states (rule, group_key, level, value, bound, firing_since, last_period_start) VALUES (?, ?, ?, ?, ?, ?::TIMESTAMPTZ, ?::TIMESTAMPTZ)`,
      [rule.name, e.key, e.level, e.value, e.bound, start, start],
    );
    changes.started.push((await openStates(db, rule.name)).find((s) => s.group_key === e.key)!);
  }
  for (const state of open.values()) {
    const e = byKey.get(state.group_key);
    if (state.last_period_start.getTime() > window.start.getTime()) continue;
    // too little to judge is not known to be wrong: like ok, it ends the episode (backtest.ts alike)
    if (e && isFiring(e.level)) continue;
    await db.run(`UPDATE alert_states SET resolved_at = ?::TIMESTAMPTZ WHERE rule = ? AND group_key = ? AND resolved_at IS NULL`, [
      start,
      rule.name,
      state.group_key,
    ]);
    changes.resolved.push({ ...state, resolved_at: window.start });
  }
}

/** The episodes still firing, of one rule or of all. */
export async function openStates(db: Database, rule?: string): Promise<AlertState[]> {
  const rows = await db.all(
    `SELECT * FROM alert_states WHERE resolved_at IS NULL ${rule === undefined ? '' : 'AND rule = $rule'} ORDER BY rule, group_key`,
    rule === undefined ? undefined : { rule },
  );
  return rows.map(toState);
}

export function toState(r: Record<string, unknown>): AlertState {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as Date));
  return {
    rule: String(r.rule),
    group_key: String(r.group_key),
    level: r.level as Level,
    value: r.value === null ? null : Number(r.value),
    bound: r.bound === null ? null : Number(r.bound),
    firing_since: date(r.firing_since)!,
    last_period_start: date(r.last_period_start)!,
    resolved_at: date(r.resolved_at),
    notified_firing_at: date(r.notified_firing_at),
    notified_resolved_at: date(r.notified_resolved_at),
    notify_attempts: Number(r.notify_attempts ?? 0),
  };
}
