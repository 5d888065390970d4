// Where notifications go: the webhook's address from the environment or a file only (it often
// holds a token), never a flag or the config, and never written to a log, an error or the
// database; PagerDuty's routing key the same way. The body is built by the format (formats/).

import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { InvalidInputError } from '../shared/errors.js';
import { alertmanagerBody } from './formats/alertmanager.js';
import { PAGERDUTY_EVENTS_URL, pagerdutyBody } from './formats/pagerduty.js';
import { slackBody } from './formats/slack.js';
import type { AlertFacts } from './message.js';

export const WEBHOOK_FORMATS = ['alertmanager', 'slack', 'pagerduty'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

export interface Webhook {
  url: URL;
  format: WebhookFormat;
  timeoutMs: number;
  /** pagerduty: the integration's routing key (a secret: it goes into the body only) */
  routingKey?: string;
}

/**
 * The webhook named by CONVODUCK_ALERT_WEBHOOK_URL or the file CONVODUCK_ALERT_WEBHOOK_URL_FILE; null
 * when neither is set. pagerduty posts to PagerDuty's Events API unless a URL is set, and needs
 * CONVODUCK_PAGERDUTY_ROUTING_KEY or the file CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE.
 */
export function webhookFromEnv(env: NodeJS.ProcessEnv, format: WebhookFormat, timeoutMs: number): Webhook | null {
  const found = secretFromEnv(env, 'CONVODUCK_ALERT_WEBHOOK_URL', 'the webhook URL');
  if (format === 'pagerduty') {
    const key = secretFromEnv(env, 'CONVODUCK_PAGERDUTY_ROUTING_KEY', "the PagerDuty integration's routing key");
    if (key === null) {
      throw new InvalidInputError(
        '--webhook-format pagerduty needs the routing key — set CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE to a file holding it (or CONVODUCK_PAGERDUTY_ROUTING_KEY), never a flag',
      );
    }
    if (!/^[\x21-\x7e]+$/.test(key.text)) throw new InvalidInputError(`${key.source} holds something that is not a routing key (one line, no spaces) — check it`);
    return { url: found === null ? new URL(PAGERDUTY_EVENTS_URL) : checkUrl(found), format, timeoutMs, routingKey: key.text };
  }
  return found === null ? null : { url: checkUrl(found), format, timeoutMs };
}

/** The value of VAR, else of the file VAR_FILE names, trimmed; null when neither is set. */
function secretFromEnv(env: NodeJS.ProcessEnv, name: string, what: string): { text: string; source: string } | null {
  const direct = env[name];
  if (direct) return { text: direct.trim(), source: name };
  const file = env[`${name}_FILE`];
  if (!file) return null;
  const source = `the file ${name}_FILE names (${file})`;
  try {
    return { text: readFileSync(file, 'utf8').trim(), source };
  } catch (err) {
    throw new InvalidInputError(`${source} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'}) — point it at a file holding ${what}`);
  }
}

function checkUrl({ text, source }: { text: string; source: string }): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`the webhook URL in ${source} is not a URL — give an http(s) address`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError(`the webhook URL in ${source} is not http(s) — give an http(s) address`);
  return url;
}

/** The body the webhook receives for one alert's notification. */
export function webhookBody(facts: AlertFacts, webhook: Pick<Webhook, 'format' | 'routingKey'>): string {
  if (webhook.format === 'slack') return JSON.stringify(slackBody(facts));
  if (webhook.format === 'pagerduty') return JSON.stringify(pagerdutyBody(facts, webhook.routingKey!));
  return JSON.stringify(alertmanagerBody(facts));
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
