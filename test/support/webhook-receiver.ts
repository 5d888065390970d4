// A webhook receiver on 127.0.0.1 for the alert tests: it answers as told (taking posts, 500, or
// never answering), keeps the bodies it took and counts every post it was sent. Given a shape
// (Alertmanager v4, Slack Block Kit, PagerDuty Events v2) it refuses with 400, as the real service
// does, any body that breaks the documented shape or limits, and keeps why.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverMode = 'down' | 'hang' | 'up';

/** An Alertmanager webhook body (version 4), as much of it as the tests read. */
export interface PostedAlerts {
  status: string;
  alerts: { status: string; labels: Record<string, string>; startsAt: string; endsAt: string; fingerprint: string }[];
}

/** What is wrong with a body under a documented shape; an empty list when nothing is. */
export type ShapeCheck = (body: unknown) => string[];

export interface WebhookReceiver {
  /** the URL to post to, with `token` in its path */
  url: string;
  mode: ReceiverMode;
  /** the bodies taken (answered 2xx), in order */
  accepted: PostedAlerts[];
  /** the posts refused for their shape, with the reasons */
  refused: { body: unknown; problems: string[] }[];
  /** every post sent, whatever the answer */
  requests: number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(token: string, mode: ReceiverMode = 'up', shape?: ShapeCheck): Promise<WebhookReceiver> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      receiver.requests++;
      if (receiver.mode === 'hang') return; // never answers
      if (receiver.mode === 'down') return void res.writeHead(500).end('down');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        receiver.refused.push({ body, problems: ['not JSON'] });
        return void res.writeHead(400).end('invalid JSON');
      }
      const problems = [...(req.headers['content-type']?.startsWith('application/json') ? [] : ['content-type is not application/json']), ...(shape?.(parsed) ?? [])];
      if (problems.length > 0) {
        receiver.refused.push({ body: parsed, problems });
        return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'invalid event', errors: problems }));
      }
      receiver.accepted.push(parsed as PostedAlerts);
      if (shape === pagerdutyShape) {
        const dedup = (parsed as { dedup_key?: string }).dedup_key;
        return void res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: dedup }));
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${token}`,
    mode,
    accepted: [],
    refused: [],
    requests: 0,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => typeof v === 'string';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function onlyKeys(o: Obj, allowed: readonly string[], where: string): string[] {
  return Object.keys(o).filter((k) => !allowed.includes(k)).map((k) => `${where}: unknown key ${k}`);
}

/** Alertmanager's webhook payload, version 4 (prometheus.io/docs/alerting/latest/configuration/#webhook_config). */
export const alertmanagerShape: ShapeCheck = (b) => {
  if (!isObj(b)) return ['not an object'];
  const p = onlyKeys(b, ['version', 'groupKey', 'truncatedAlerts', 'status', 'receiver', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL', 'alerts'], 'body');
  if (b.version !== '4') p.push('version is not "4"');
  if (!['firing', 'resolved'].includes(b.status as string)) p.push('status is not firing or resolved');
  for (const k of ['groupKey', 'receiver', 'externalURL']) if (!str(b[k])) p.push(`${k} is not a string`);
  if (typeof b.truncatedAlerts !== 'number') p.push('truncatedAlerts is not a number');
  for (const k of ['groupLabels', 'commonLabels', 'commonAnnotations']) {
    if (!isObj(b[k]) || !Object.values(b[k] as Obj).every(str)) p.push(`${k} is not a map of strings`);
  }
  if (!Array.isArray(b.alerts) || b.alerts.length === 0) return [...p, 'alerts is not a non-empty list'];
  for (const [i, a] of (b.alerts as unknown[]).entries()) {
    if (!isObj(a)) {
      p.push(`alerts[${i}] is not an object`);
      continue;
    }
    p.push(...onlyKeys(a, ['status', 'labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL', 'fingerprint'], `alerts[${i}]`));
    for (const k of ['labels', 'annotations']) if (!isObj(a[k]) || !Object.values(a[k] as Obj).every(str)) p.push(`alerts[${i}].${k} is not a map of strings`);
    for (const k of ['startsAt', 'endsAt']) if (!str(a[k]) || !ISO.test(a[k] as string)) p.push(`alerts[${i}].${k} is not an RFC 3339 time`);
    if (!str(a.generatorURL) || !str(a.fingerprint)) p.push(`alerts[${i}]: generatorURL or fingerprint is not a string`);
    if (!str((a.labels as Obj | undefined)?.alertname)) p.push(`alerts[${i}] has no alertname label`);
  }
  return p;
};

/** A Slack incoming-webhook message with Block Kit blocks, within Slack's documented limits. */
export const slackShape: ShapeCheck = (b) => {
  if (!isObj(b)) return ['not an object'];
  const p = onlyKeys(b, ['text', 'blocks'], 'body');
  if (!str(b.text) || (b.text as string).length === 0) p.push('text (the notification fallback) is missing');
  if (!Array.isArray(b.blocks) || b.blocks.length === 0 || b.blocks.length > 50) return [...p, 'blocks is not a list of 1 to 50 blocks'];
  const text = (t: unknown, types: string[], max: number, where: string) => {
    if (!isObj(t) || !types.includes(t.type as string) || !str(t.text)) return p.push(`${where} is not a ${types.join(' or ')} text object`);
    if ((t.text as string).length === 0 || (t.text as string).length > max) p.push(`${where} has ${(t.text as string).length} characters (1 to ${max})`);
    return 0;
  };
  for (const [i, block] of (b.blocks as unknown[]).entries()) {
    const where = `blocks[${i}]`;
    if (!isObj(block)) {
      p.push(`${where} is not an object`);
      continue;
    }
    if (block.type === 'header') {
      p.push(...onlyKeys(block, ['type', 'text', 'block_id'], where));
      text(block.text, ['plain_text'], 150, `${where}.text`);
    } else if (block.type === 'section') {
      p.push(...onlyKeys(block, ['type', 'text', 'fields', 'block_id', 'accessory'], where));
      if (block.text === undefined && block.fields === undefined) p.push(`${where} has neither text nor fields`);
      if (block.text !== undefined) text(block.text, ['plain_text', 'mrkdwn'], 3000, `${where}.text`);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields) || block.fields.length === 0 || block.fields.length > 10) p.push(`${where}.fields is not a list of 1 to 10`);
        else block.fields.forEach((f, j) => text(f, ['plain_text', 'mrkdwn'], 2000, `${where}.fields[${j}]`));
      }
    } else if (block.type === 'context') {
      p.push(...onlyKeys(block, ['type', 'elements', 'block_id'], where));
      if (!Array.isArray(block.elements) || block.elements.length === 0 || block.elements.length > 10) p.push(`${where}.elements is not a list of 1 to 10`);
      else block.elements.forEach((e, j) => text(e, ['plain_text', 'mrkdwn'], 3000, `${where}.elements[${j}]`));
    } else {
      p.push(`${where}: block type ${String(block.type)} is not expected`);
    }
  }
  return p;
};

/** PagerDuty's Events API v2 (developer.pagerduty.com/docs/events-api-v2/trigger-events/). */
export const pagerdutyShape: ShapeCheck = (b) => {
  if (!isObj(b)) return ['not an object'];
  const p = onlyKeys(b, ['routing_key', 'event_action', 'dedup_key', 'payload', 'images', 'links', 'client', 'client_url'], 'body');
  if (!str(b.routing_key) || (b.routing_key as string).length !== 32) p.push('routing_key is not a 32-character integration key');
  if (!['trigger', 'acknowledge', 'resolve'].includes(b.event_action as string)) p.push('event_action is not trigger, acknowledge or resolve');
  if (b.dedup_key !== undefined && (!str(b.dedup_key) || (b.dedup_key as string).length > 255)) p.push('dedup_key is not a string of at most 255 characters');
  if (b.event_action !== 'trigger') {
    if (!str(b.dedup_key)) p.push(`${String(b.event_action)} needs a dedup_key`);
    return p;
  }
  const pl = b.payload;
  if (!isObj(pl)) return [...p, 'a trigger needs a payload'];
  p.push(...onlyKeys(pl, ['summary', 'source', 'severity', 'timestamp', 'component', 'group', 'class', 'custom_details'], 'payload'));
  if (!str(pl.summary) || (pl.summary as string).length === 0 || (pl.summary as string).length > 1024) p.push('payload.summary is not 1 to 1024 characters');
  if (!str(pl.source) || (pl.source as string).length === 0) p.push('payload.source is missing');
  if (!['critical', 'error', 'warning', 'info'].includes(pl.severity as string)) p.push('payload.severity is not critical, error, warning or info');
  if (pl.timestamp !== undefined && (!str(pl.timestamp) || !ISO.test(pl.timestamp as string))) p.push('payload.timestamp is not ISO 8601');
  for (const k of ['component', 'group', 'class']) if (pl[k] !== undefined && !str(pl[k])) p.push(`payload.${k} is not a string`);
  if (pl.custom_details !== undefined && !isObj(pl.custom_details)) p.push('payload.custom_details is not an object');
  if (b.links !== undefined) {
    if (!Array.isArray(b.links) || !b.links.every((l) => isObj(l) && str(l.href) && (l.text === undefined || str(l.text)))) p.push('links is not a list of {href, text}');
  }
  for (const k of ['client', 'client_url']) if (b[k] !== undefined && !str(b[k])) p.push(`${k} is not a string`);
  return p;
};
