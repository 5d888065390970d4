// PagerDuty's Events API v2 (POST /v2/enqueue): a trigger when an alert starts firing and a
// resolve when it ends, both with the alert's fingerprint as dedup_key, so PagerDuty opens one
// incident per alert and closes that one. The routing key is the integration's secret: it comes
// from the environment or a file (webhook.ts) and is only ever written into the body.

import { clip, figures, summaryText, whereText, type AlertFacts } from '../message.js';

export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
/** The Events API's limits: summary ≤ 1024 characters, dedup_key ≤ 255. */
export const PAGERDUTY_LIMITS = { summary: 1024, dedupKey: 255 } as const;

export function pagerdutyBody(f: AlertFacts, routingKey: string): object {
  const dedup_key = clip(f.fingerprint, PAGERDUTY_LIMITS.dedupKey);
  if (f.status === 'resolved') return { routing_key: routingKey, event_action: 'resolve', dedup_key };
  const { space, ...rest } = f.labels;
  const component = whereText({ ...rest, space: null });
  const links = [
    ...(f.link ? [{ href: f.link, text: 'The report with these numbers' }] : []),
    ...(f.runbookUrl ? [{ href: f.runbookUrl, text: 'Runbook' }] : []),
  ];
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key,
    payload: {
      summary: clip(summaryText(f), PAGERDUTY_LIMITS.summary),
      source: space ?? 'convoduck',
      severity: f.level === 'error' ? 'error' : 'warning',
      timestamp: f.detectedAt.toISOString(),
      component: component === 'all spaces' ? (space ?? 'all spaces') : component,
      group: space ?? 'all spaces',
      class: f.kind === 'freshness' ? `freshness of ${f.freshnessOf}` : `${f.report}.${f.column}`,
      custom_details: { rule: f.rule, description: f.description, ...figures(f), labels: f.labels },
    },
    client: 'convoduck',
    ...(f.link ? { client_url: f.link } : {}),
    links,
  };
}
