// Delivering alerts: one notification when an episode starts firing and one when it resolves,
// whatever the number of runs in between. What is owed is read from alert_states (notified_* still
// empty), so a receiver that is down or hangs loses nothing: the next run tries again, until an
// episode has failed MAX_ATTEMPTS times. The first failure ends a run's deliveries: a dead receiver
// costs a run one timeout, not one per alert.

import type { Database } from '../store/database.js';
import type { Rule } from './rules.js';
import { toState, type AlertState } from './state.js';
import type { GroupLabels } from './values.js';
import { post, webhookBody, type Notification, type Webhook } from './webhook.js';

/** Runs an episode's notifications are tried in before it is given up. */
export const MAX_ATTEMPTS = 24;

export interface DeliveryOutcome {
  sent: number;
  /** why the run's deliveries stopped (never the URL); null when everything owed was sent */
  failed: string | null;
  /** notifications still owed after this run */
  pending: number;
}

export async function deliver(db: Database, rules: readonly Rule[], webhook: Webhook, now: Date): Promise<DeliveryOutcome> {
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
      const reason = await post(webhook, webhookBody(notification(state, rule, status), webhook.format));
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

function notification(state: AlertState, rule: Rule | undefined, status: 'firing' | 'resolved'): Notification {
  const what = rule && rule.kind !== 'freshness' ? `${rule.column} of ${rule.report}` : `hours since the last ${rule?.kind === 'freshness' ? rule.of : 'event'}`;
  return {
    status,
    rule: state.rule,
    level: state.level,
    labels: JSON.parse(state.group_key) as GroupLabels,
    summary: `${what} ${round(state.value)} against ${round(state.bound)} (${rule?.period ?? ''} from ${state.last_period_start.toISOString()})`,
    description: rule?.description ?? '',
    startsAt: state.firing_since.toISOString(),
    endsAt: status === 'resolved' && state.resolved_at ? state.resolved_at.toISOString() : null,
    groupKey: state.group_key,
  };
}

function round(v: number | null): string {
  return v === null ? '(none)' : String(Math.round(v * 1000) / 1000);
}
