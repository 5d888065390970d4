// Alertmanager's webhook payload (version 4), one alert per post, so that anything taking
// Alertmanager's webhooks takes convoduck's: labels identify the alert, annotations carry the
// words (summary, description, runbook_url) and the figures behind them.

import { figures, summaryText, type AlertFacts } from '../message.js';

/** Alertmanager's zero time: an alert still firing has no end. */
export const NO_END = '0001-01-01T00:00:00Z';

export function alertmanagerBody(f: AlertFacts): object {
  const labels: Record<string, string> = { alertname: f.rule, severity: f.level };
  for (const [k, v] of Object.entries(f.labels)) if (v !== null && !(k in labels)) labels[k] = v;
  const annotations: Record<string, string> = { summary: summaryText(f), description: f.description || summaryText(f) };
  if (f.runbookUrl) annotations.runbook_url = f.runbookUrl;
  Object.assign(annotations, figures(f));
  return {
    version: '4',
    groupKey: `{}:{alertname=${JSON.stringify(f.rule)}}`,
    truncatedAlerts: 0,
    status: f.status,
    receiver: 'convoduck',
    groupLabels: { alertname: f.rule },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: f.link ?? '',
    alerts: [
      {
        status: f.status,
        labels,
        annotations,
        startsAt: f.firingSince.toISOString(),
        endsAt: f.status === 'resolved' && f.resolvedAt ? f.resolvedAt.toISOString() : NO_END,
        generatorURL: f.link ?? '',
        fingerprint: f.fingerprint,
      },
    ],
  };
}
