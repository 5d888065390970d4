// The webhook that receives alerts: its address from the environment or a file only (it often
// holds a token), never a flag or the config, and never written to a log, an error or the
// database. Bodies in Alertmanager's webhook shape (version 4) or as Slack-compatible text.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { InvalidInputError } from '../shared/errors.js';
import type { GroupLabels } from './values.js';

export const WEBHOOK_FORMATS = ['alertmanager', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface Webhook {
  url: URL;
  format: WebhookFormat;
  timeoutMs: number;
}

/** The webhook named by CONVODUCK_ALERT_WEBHOOK_URL or the file CONVODUCK_ALERT_WEBHOOK_URL_FILE; null when neither is set. */
export function webhookFromEnv(env: NodeJS.ProcessEnv, format: WebhookFormat, timeoutMs: number): Webhook | null {
  let text = env.CONVODUCK_ALERT_WEBHOOK_URL;
  let source = 'CONVODUCK_ALERT_WEBHOOK_URL';
  const file = env.CONVODUCK_ALERT_WEBHOOK_URL_FILE;
  if (!text && file) {
    source = `the file CONVODUCK_ALERT_WEBHOOK_URL_FILE names (${file})`;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (err) {
      throw new InvalidInputError(`${source} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}) — point it at a file holding the webhook URL`);
    }
  }
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InvalidInputError(`the webhook URL in ${source} is not a URL — give an http(s) address`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError(`the webhook URL in ${source} is not http(s) — give an http(s) address`);
  return { url, format, timeoutMs };
}

/** One alert's notification: it started firing, or it resolved. */
export interface Notification {
  status: 'firing' | 'resolved';
  rule: string;
  level: string;
  labels: GroupLabels;
  summary: string;
  description: string;
  startsAt: string;
  /** resolved: when; firing: null */
  endsAt: string | null;
  groupKey: string;
}

/** The body the webhook receives. */
export function webhookBody(n: Notification, format: WebhookFormat): string {
  const labels: Record<string, string> = { alertname: n.rule, severity: n.level };
  for (const [k, v] of Object.entries(n.labels)) if (v !== null) labels[k] = v;
  if (format === 'slack') {
    const where = Object.entries(n.labels).map(([k, v]) => `${k}=${v ?? '(none)'}`).join(' ');
    const head = n.status === 'firing' ? `:rotating_light: FIRING ${n.level}` : ':white_check_mark: RESOLVED';
    return JSON.stringify({ text: `${head} ${n.rule}${where ? ` ${where}` : ''}: ${n.summary}` });
  }
  const annotations = { summary: n.summary, description: n.description };
  return JSON.stringify({
    version: '4',
    groupKey: `{}:{alertname="${n.rule}"}`,
    truncatedAlerts: 0,
    status: n.status,
    receiver: 'convoduck',
    groupLabels: { alertname: n.rule },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: '',
    alerts: [
      {
        status: n.status,
        labels,
        annotations,
        startsAt: n.startsAt,
        endsAt: n.endsAt ?? '0001-01-01T00:00:00Z',
        generatorURL: '',
        fingerprint: createHash('sha256').update(`${n.rule}\0${n.groupKey}`).digest('hex').slice(0, 16),
      },
    ],
  });
}

/** Posts one notification; the reason it was not accepted (never the URL), or null when it was. */
export async function post(webhook: Webhook, body: string): Promise<string | null> {
  try {
    const res = await request(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      headersTimeout: webhook.timeoutMs,
      bodyTimeout: webhook.timeoutMs,
      signal: AbortSignal.timeout(webhook.timeoutMs),
    });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`;
  } catch (err) {
    const e = err as { code?: string; name?: string };
    if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${webhook.timeoutMs / 1000} s`;
    return e.code ?? e.name ?? 'unreachable';
  }
}
