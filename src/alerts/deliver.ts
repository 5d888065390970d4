// Delivering alerts: one notification when an episode starts firing and one when it resolves,
// whatever the number of runs in between. What is owed is read from alert_states (notified_* still
// empty), so a receiver that is down or hangs loses nothing: the next run tries again, until an
// episode has failed MAX_ATTEMPTS times. The first failure ends a run's deliveries: a dead receiver
// costs a run one timeout, not one per alert.

import type { ReportDefinition } from '../reports/catalog.js';
import type { Database } from '../store/database.js';
import type { AlertFacts } from './message.js';
import { periodMs } from './periods.js';
import type { Rule } from './rules.js';
import { toState, type AlertState } from './state.js';
import { columnTerms, factsOf } from './facts.js';
import { post, webhookBody, type Webhook } from './webhook.js';

/** Runs an episode's notifications are tried in before it is given up. */
export const MAX_ATTEMPTS = 24;
/** Earlier ok periods of a group whose median is its usual value, for a rule with no baseline of its own. */
const USUAL_PERIODS = 14;

export interface DeliveryOutcome {
  sent: number;
  /** why the run's deliveries stopped (never the URL); null when everything owed was sent */
  failed: string | null;
  /** notifications still owed after this run */
  pending: number;
}

export interface DeliveryContext {
  /** the reports the rules read: whether a column is a rate, and of which count */
  catalog: readonly ReportDefinition[];
  /** the page or report showing the numbers (--external-url); null when none is set */
  link: string | null;
}

export async function deliver(db: Database, rules: readonly Rule[], webhook: Webhook, now: Date, context: DeliveryContext): Promise<DeliveryOutcome> {
  const byName = new Map(rules.map((r) => [r.name, r]));
  const owed = (
    await db.all(
      `SELECT * FROM alert_states
       WHERE notify_attempts < ${MAX_ATTEMPTS}
         AND (notified_firing_at IS NULL OR (resolved_at IS NOT NULL AND notified_resolved_at IS NULL))
       ORDER BY firing_since, rule, group_key`,
    )
  ).map(toState);
  const outcome: DeliveryOutcome = { sent: 0, failed: null, pending: 0 };
  for (const state of owed) {
    const rule = byName.get(state.rule);
    const steps: ('firing' | 'resolved')[] = [];
    if (state.notified_firing_at === null) steps.push('firing');
    if (state.resolved_at !== null) steps.push('resolved');
    for (const status of steps) {
      if (outcome.failed !== null) {
        outcome.pending++;
        continue;
      }
      const facts = await alertFacts(db, state, rule, status, now, context);
      const reason = await post(webhook, webhookBody(facts, webhook));
      const column = status === 'firing' ? 'notified_firing_at' : 'notified_resolved_at';
      const where = `WHERE rule = ? AND group_key = ? AND firing_since = ?::TIMESTAMPTZ`;
      const key = [state.rule, state.group_key, state.firing_since.toISOString()];
      if (reason === null) {
        await db.run(`UPDATE alert_states SET ${column} = ?::TIMESTAMPTZ, notify_attempts = 0 ${where}`, [now.toISOString(), ...key]);
        outcome.sent++;
      } else {
        await db.run(`UPDATE alert_states SET notify_attempts = notify_attempts + 1 ${where}`, key);
        outcome.failed = reason;
        outcome.pending++;
      }
    }
  }
  return outcome;
}

/**
 * One notification's facts, read from the rows: the episode (alert_states), the evaluation of the
 * period it is about (the latest firing one, or the one found ok), and the group's usual value.
 */
export async function alertFacts(
  db: Database,
  state: AlertState,
  rule: Rule | undefined,
  status: 'firing' | 'resolved',
  now: Date,
  context: DeliveryContext,
): Promise<AlertFacts> {
  const periodStart = status === 'resolved' && state.resolved_at ? state.resolved_at : state.last_period_start;
  const evaluation = await db.one(
    `SELECT value, expected, bound, volume, period_end FROM alert_evaluations
     WHERE rule = ? AND group_key = ? AND period_start = ?::TIMESTAMPTZ ORDER BY evaluated_at DESC LIMIT 1`,
    [state.rule, state.group_key, periodStart.toISOString()],
  );
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  let expected = evaluation ? num(evaluation.expected) : null;
  if (expected === null && (rule?.kind ?? 'threshold') === 'threshold') expected = await usualValue(db, state, periodStart);
  const period = {
    status,
    ruleName: state.rule,
    groupKey: state.group_key,
    level: state.level,
    firingValue: state.value,
    bound: state.bound,
    firingSince: state.firing_since,
    resolvedAt: state.resolved_at,
    periodStart,
    periodEnd: evaluation?.period_end ? new Date(evaluation.period_end as Date) : periodEndOf(rule, periodStart),
    value: evaluation ? num(evaluation.value) : null,
    expected,
    volume: evaluation ? num(evaluation.volume) : null,
  };
  return factsOf(rule, columnTerms(rule, context.catalog), period, { link: context.link, detectedAt: now });
}

/** The median of the group's values in its latest ok periods before `before`; null without any. */
async function usualValue(db: Database, state: AlertState, before: Date): Promise<number | null> {
  const row = await db.one(
    `SELECT median(value) AS usual FROM (
       SELECT value FROM alert_evaluations
       WHERE rule = ? AND group_key = ? AND level = 'ok' AND value IS NOT NULL AND period_start < ?::TIMESTAMPTZ
       ORDER BY period_start DESC LIMIT ${USUAL_PERIODS})`,
    [state.rule, state.group_key, before.toISOString()],
  );
  return row?.usual === null || row?.usual === undefined ? null : Number(row.usual);
}

function periodEndOf(rule: Rule | undefined, start: Date): Date {
  return new Date(start.getTime() + periodMs(rule?.period ?? 'day'));
}
