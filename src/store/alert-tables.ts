// The alert tables (alerts/ writes them): each evaluated value, and each alert's episodes
// (firing since, resolved at, notified at) as rows.

export const ALERTS_DDL = `CREATE TABLE IF NOT EXISTS alert_evaluations (
  rule VARCHAR NOT NULL,
  group_key VARCHAR NOT NULL,
  period_start TIMESTAMPTZ NOT NULL,
  period_end TIMESTAMPTZ NOT NULL,
  value DOUBLE,
  expected DOUBLE,
  bound DOUBLE,
  level VARCHAR NOT NULL,
  evaluated_at TIMESTAMPTZ NOT NULL,
  volume DOUBLE,
  reason VARCHAR
);
CREATE TABLE IF NOT EXISTS alert_states (
  rule VARCHAR NOT NULL,
  group_key VARCHAR NOT NULL,
  level VARCHAR NOT NULL,
  value DOUBLE,
  bound DOUBLE,
  firing_since TIMESTAMPTZ NOT NULL,
  last_period_start TIMESTAMPTZ NOT NULL,
  resolved_at TIMESTAMPTZ,
  notified_firing_at TIMESTAMPTZ,
  notified_resolved_at TIMESTAMPTZ,
  notify_attempts INTEGER NOT NULL DEFAULT 0
);`;

/** The rule's volume column beside each value (schema 22): the counts behind a rate in a notification. */
export const ALERT_VOLUME_MIGRATION = `ALTER TABLE alert_evaluations ADD COLUMN IF NOT EXISTS volume DOUBLE;`;

/** Why a group was skipped or a crossing stayed ok (schema 23): a live run's silence, explained in rows. */
export const ALERT_REASON_MIGRATION = `ALTER TABLE alert_evaluations ADD COLUMN IF NOT EXISTS reason VARCHAR;`;
