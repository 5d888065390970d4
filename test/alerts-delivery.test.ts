// What a person on call receives from `convoduck alert`, field by field, in each format: the
// firing and the resolved post of an Alertmanager webhook, a Slack Block Kit message and a
// PagerDuty Events v2 event, each taken by a loopback receiver that refuses (400) a body breaking
// its documented shape. The figures are counted again from the stored rows and the simulator's
// records, not from the report the rule reads.
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figure, percent } from '../src/alerts/message.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { alertmanagerShape, pagerdutyShape, slackShape, startWebhookReceiver, type ShapeCheck } from './support/webhook-receiver.js';

const { fileDir } = scratch('alerts-delivery');
const DAY = 86_400_000;
/** Judged as of the start of today (UTC): every rule's day is yesterday, whenever the test runs. */
const TODAY = Date.now() - (Date.now() % DAY);
const YESTERDAY = TODAY - DAY;
const DAY_TEXT = new Date(YESTERDAY).toISOString().slice(0, 10);
const LINK = 'https://reports.example.com/convoduck/report.html';
const ROUTING_KEY = 'R0ut1ngK3yOfTh1sIntegrat1on00042'; // 32 characters, as PagerDuty's are
const TOKEN = 'hook-token-5150';
const RUNBOOK = 'https://wiki.example.com/runbooks/tool-failures';

let sim: Simulator;
let dir: string;
let golden: string;
let copies = 0;

beforeAll(async () => {
  sim = await startSimulator({ seed: 37, conversations: 300, days: 10, rateLimit: 100_000, incidents: { toolOutage: { daysAgo: 1 } } });
  dir = fileDir();
  golden = join(dir, 'golden.duckdb');
  const synced = await runCli(['sync', '--db', golden], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
  expect(synced.code, synced.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await sim.close();
});

const rules = (warnAbove: number, errorAbove: number, change: number) => {
  const path = join(dir, `rules-${++copies}.toml`);
  writeFileSync(
    path,
    `
[[rule]]
name = "tool-failures"
description = "Tool calls through this connection fail far more than usual"
runbook_url = "${RUNBOOK}"
report = "connection_health"
column = "failure_rate"
group = ["space", "connection_id", "connection_name"]
period = "day"
kind = "threshold"
warn_above = ${warnAbove}
error_above = ${errorAbove}
volume_column = "calls"
min_volume = 1

[[rule]]
name = "volume"
description = "Far more or fewer conversations than the days before"
report = "outcomes"
column = "conversations"
group = ["space"]
period = "day"
kind = "change"
against = "average"
periods = 3
warn = ${change}
`,
  );
  return path;
};

interface Failing {
  id: string;
  name: string;
  space: string;
  calls: number;
  failures: number;
}

/** Yesterday's calls and failures per connection that had a failure, counted from the stored calls. */
async function failingConnections(db: string): Promise<Failing[]> {
  const day = new Date(YESTERDAY).toISOString();
  const rows = await Database.with(
    db,
    (d) =>
      d.all(
        `SELECT k.id, k.name, k.space, count(*)::INTEGER AS calls, count(*) FILTER (WHERE c.status <> 'ok')::INTEGER AS failures
         FROM tool_calls c JOIN tools t ON t.slug = c.slug JOIN connections k ON k.id = t.connection_id
         WHERE c.called_at >= '${day}'::TIMESTAMPTZ AND c.called_at < '${day}'::TIMESTAMPTZ + INTERVAL 1 DAY
         GROUP BY ALL HAVING failures > 0 ORDER BY k.id`,
      ),
    { readOnly: true },
  );
  return rows as unknown as Failing[];
}

/** Conversations started on the day `daysAgo` days before today, from the simulator's own records. */
const startedOn = (daysAgo: number) => sim.dataset.records.filter((r) => r.startMs >= TODAY - daysAgo * DAY && r.startMs < TODAY - (daysAgo - 1) * DAY).length;

const fingerprint = (rule: string, labels: object) => createHash('sha256').update(`${rule}\0${JSON.stringify(labels)}`).digest('hex').slice(0, 16);

interface Expected {
  rule: string;
  labels: Record<string, string>;
  level: 'warn' | 'error';
  description: string;
  summary: string;
  resolvedSummary: string;
  annotations: Record<string, string>;
  where: string;
  runbook: string | null;
}

/** What each alert's notification must say, from the counts above. */
async function expectedAlerts(db: string): Promise<Expected[]> {
  const failing = await failingConnections(db);
  expect(failing.length, 'the planted outage fails calls yesterday').toBeGreaterThan(0);
  const period = `day ${new Date(YESTERDAY).toISOString()} – ${new Date(TODAY).toISOString()}`;
  const since = new Date(YESTERDAY).toISOString();
  const out: Expected[] = failing.map((c) => {
    const rate = c.failures / c.calls;
    const level = rate > 0.3 ? 'error' : 'warn';
    const bound = level === 'error' ? '30%' : '0%';
    const measured = `${c.name} (${c.space}): failure rate ${percent(rate)} (${c.failures} of ${c.calls} calls) on ${DAY_TEXT}`;
    return {
      rule: 'tool-failures',
      labels: { space: c.space, connection_id: c.id, connection_name: c.name },
      level,
      description: 'Tool calls through this connection fail far more than usual',
      where: `${c.name} (${c.space})`,
      runbook: RUNBOOK,
      summary: `${measured}; ${level} above ${bound}`,
      resolvedSummary: `Resolved: ${measured}; was ${level} above ${bound} since ${DAY_TEXT}`,
      annotations: { value: percent(rate), bound, volume: `${c.calls} calls`, count: String(c.failures), period, firing_since: since, measure: 'failure_rate of report connection_health' },
    };
  });
  // the volume rule: yesterday against the mean of the three days before, any change fires
  const value = startedOn(1);
  const usual = (startedOn(2) + startedOn(3) + startedOn(4)) / 3;
  expect(value).not.toBe(usual);
  const side = value < usual ? 'below' : 'above';
  const bound = usual + (value < usual ? -1 : 1) * 0.0001 * usual;
  const measured = `${sim.space}: ${value} conversations on ${DAY_TEXT} (${percent(Math.abs(value - usual) / usual)} ${side} usual); usually ${figure(usual)}`;
  out.push({
    rule: 'volume',
    labels: { space: sim.space },
    level: 'warn',
    description: 'Far more or fewer conversations than the days before',
    where: sim.space,
    runbook: null,
    summary: `${measured}; warn ${side} ${figure(bound)}`,
    resolvedSummary: `Resolved: ${measured}; was warn ${side} ${figure(bound)} since ${DAY_TEXT}`,
    annotations: { value: String(value), expected: figure(usual), bound: figure(bound), period, firing_since: since, measure: 'conversations of report outcomes' },
  });
  return out;
}

/** A fresh copy of the synced database: two runs judging yesterday, the rules firing, then relaxed. */
async function fireAndResolve(format: string, shape: ShapeCheck, env: (url: string) => Record<string, string>) {
  const db = join(dir, `copy-${++copies}.duckdb`);
  copyFileSync(golden, db);
  const receiver = await startWebhookReceiver(TOKEN, 'up', shape);
  try {
    const at = new Date(TODAY).toISOString();
    const run = (r: string) => runCli(['alert', '--db', db, '--rules', r, '--at', at, '--webhook-format', format, '--external-url', LINK, '--json'], env(receiver.url));
    const fired = await run(rules(0, 0.3, 0.0001));
    expect(fired.code, fired.stderr).toBe(10);
    const resolved = await run(rules(2, 2, 100));
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(receiver.refused, JSON.stringify(receiver.refused.map((r) => r.problems))).toEqual([]);
    for (const r of [fired, resolved]) expect(r.stderr + r.stdout).not.toContain(TOKEN);
    return { db, fired, resolved, bodies: receiver.accepted as unknown as Record<string, unknown>[], expected: await expectedAlerts(db) };
  } finally {
    await receiver.close();
  }
}

describe('alertmanager: the webhook payload, version 4', () => {
  it('firing and resolved posts carry the summary in words, the figures, the period and the link', async () => {
    const { bodies, expected, fired } = await fireAndResolve('alertmanager', alertmanagerShape, (url) => ({ CONVODUCK_ALERT_WEBHOOK_URL: url }));
    expect(bodies).toHaveLength(2 * expected.length);
    // the lines on stderr say the same
    for (const e of expected) expect(fired.stderr).toContain(`FIRING ${e.level} ${e.rule}: ${e.summary}\n`);
    for (const e of expected) {
      const labels = { alertname: e.rule, severity: e.level, ...e.labels };
      const mine = bodies.filter((b) => JSON.stringify((b.alerts as { labels: object }[])[0]!.labels) === JSON.stringify(labels));
      expect(mine.map((b) => b.status), e.summary).toEqual(['firing', 'resolved']);
      const [firing, resolved] = mine as [Record<string, unknown>, Record<string, unknown>];
      const annotations = { summary: e.summary, description: e.description, ...(e.runbook ? { runbook_url: e.runbook } : {}), ...e.annotations };
      expect(firing).toEqual({
        version: '4',
        groupKey: `{}:{alertname="${e.rule}"}`,
        truncatedAlerts: 0,
        status: 'firing',
        receiver: 'convoduck',
        groupLabels: { alertname: e.rule },
        commonLabels: labels,
        commonAnnotations: annotations,
        externalURL: LINK,
        alerts: [{ status: 'firing', labels, annotations, startsAt: new Date(YESTERDAY).toISOString(), endsAt: '0001-01-01T00:00:00Z', generatorURL: LINK, fingerprint: fingerprint(e.rule, e.labels) }],
      });
      // resolved: the same alert, the figures of the period found ok (the same day, judged again)
      const resolvedAnnotations = { ...annotations, summary: e.resolvedSummary, resolved_at: new Date(YESTERDAY).toISOString() };
      expect(resolved).toEqual({
        ...firing,
        status: 'resolved',
        commonAnnotations: resolvedAnnotations,
        alerts: [{ status: 'resolved', labels, annotations: resolvedAnnotations, startsAt: new Date(YESTERDAY).toISOString(), endsAt: new Date(YESTERDAY).toISOString(), generatorURL: LINK, fingerprint: fingerprint(e.rule, e.labels) }],
      });
    }
  }, 300_000);
});

describe('slack: Block Kit', () => {
  it('a header, the summary, the figures as fields, the description and the link, within Slack’s limits', async () => {
    const { bodies, expected } = await fireAndResolve('slack', slackShape, (url) => ({ CONVODUCK_ALERT_WEBHOOK_URL: url }));
    expect(bodies).toHaveLength(2 * expected.length);
    const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    for (const e of expected) {
      const mine = bodies.filter((b) => ((b.blocks as { text: { text: string } }[])[0]!.text.text).endsWith(` ${e.rule}: ${e.where}`));
      expect(mine, e.summary).toHaveLength(2);
      const [firing, resolved] = mine as [{ text: string; blocks: Record<string, unknown>[] }, { text: string; blocks: Record<string, unknown>[] }];
      const fields = (counts: string | null, valueName: string, extra: string[]) => [
        { type: 'mrkdwn', text: `*Where*\n${esc(e.where)}` },
        { type: 'mrkdwn', text: `*${valueName}*\n${e.annotations.value}` },
        ...(e.annotations.expected ? [{ type: 'mrkdwn', text: `*Usually*\n${e.annotations.expected}` }] : []),
        { type: 'mrkdwn', text: `*Bound (${e.level})*\n${e.annotations.bound}` },
        ...(counts ? [{ type: 'mrkdwn', text: `*Counts*\n${counts}` }] : []),
        { type: 'mrkdwn', text: `*Period*\nday from ${new Date(YESTERDAY).toISOString().slice(0, 10)} (UTC)` },
        { type: 'mrkdwn', text: `*Firing since*\n${new Date(YESTERDAY).toISOString().slice(0, 10)}` },
        ...extra.map((t) => ({ type: 'mrkdwn', text: t })),
        { type: 'mrkdwn', text: `*Measure*\n${e.annotations.measure}` },
      ];
      const counts = e.annotations.count ? `${e.annotations.count} of ${e.annotations.volume}` : null;
      const tail = [
        { type: 'section', text: { type: 'mrkdwn', text: `>${e.description}` } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `<${LINK}|The report with these numbers>${e.runbook ? `  ·  <${e.runbook}|Runbook>` : ''}` }] },
      ];
      expect(firing).toEqual({
        text: `${e.level.toUpperCase()} ${e.summary}`,
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: `:rotating_light: ${e.level.toUpperCase()} ${e.rule}: ${e.where}`, emoji: true } },
          { type: 'section', text: { type: 'mrkdwn', text: esc(e.summary) } },
          { type: 'section', fields: fields(counts, 'Value', []) },
          ...tail,
        ],
      });
      expect(resolved).toEqual({
        text: e.resolvedSummary,
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: `:white_check_mark: RESOLVED ${e.rule}: ${e.where}`, emoji: true } },
          { type: 'section', text: { type: 'mrkdwn', text: esc(e.resolvedSummary) } },
          { type: 'section', fields: fields(counts, 'Value now', [`*Resolved at*\n${new Date(YESTERDAY).toISOString().slice(0, 10)}`]) },
          ...tail,
        ],
      });
    }
  }, 300_000);
});

describe('pagerduty: Events API v2', () => {
  it('a trigger and a resolve per alert with its fingerprint as dedup_key; the routing key only from a file, never printed or stored', async () => {
    const keyFile = join(dir, 'routing-key');
    writeFileSync(keyFile, `${ROUTING_KEY}\n`, { mode: 0o600 });
    const { bodies, expected, db, fired, resolved } = await fireAndResolve('pagerduty', pagerdutyShape, (url) => ({ CONVODUCK_ALERT_WEBHOOK_URL: url, CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE: keyFile }));
    expect(bodies).toHaveLength(2 * expected.length);
    for (const e of expected) {
      const dedup = fingerprint(e.rule, e.labels);
      const mine = bodies.filter((b) => b.dedup_key === dedup);
      expect(mine.map((b) => b.event_action), e.summary).toEqual(['trigger', 'resolve']);
      const [trigger, resolve] = mine as [Record<string, unknown>, Record<string, unknown>];
      const detectedAt = (trigger.payload as { timestamp: string }).timestamp;
      expect(Date.parse(detectedAt)).toBeGreaterThan(TODAY);
      const { space, ...rest } = e.labels;
      expect(trigger).toEqual({
        routing_key: ROUTING_KEY,
        event_action: 'trigger',
        dedup_key: dedup,
        payload: {
          summary: e.summary,
          source: space,
          severity: e.level === 'error' ? 'error' : 'warning',
          timestamp: detectedAt,
          component: 'connection_name' in rest ? rest.connection_name : space,
          group: space,
          class: e.rule === 'volume' ? 'outcomes.conversations' : 'connection_health.failure_rate',
          custom_details: { rule: e.rule, description: e.description, ...e.annotations, labels: e.labels },
        },
        client: 'convoduck',
        client_url: LINK,
        links: [{ href: LINK, text: 'The report with these numbers' }, ...(e.runbook ? [{ href: e.runbook, text: 'Runbook' }] : [])],
      });
      expect(resolve).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: dedup });
    }
    for (const r of [fired, resolved]) expect(r.stderr + r.stdout).not.toContain(ROUTING_KEY);
    expect(readFileSync(db).includes(ROUTING_KEY)).toBe(false);
  }, 300_000);

  it('refuses the routing key as a flag, a run without one, a link with a password and a runbook that is no address, in one line (exit 2)', async () => {
    const db = join(dir, `copy-${++copies}.duckdb`);
    copyFileSync(golden, db);
    const asFlag = await runCli(['alert', '--db', db, '--rules', rules(0, 0.3, 0.0001), '--webhook-format', 'pagerduty', '--pagerduty-routing-key', ROUTING_KEY]);
    expect(asFlag.code).toBe(2);
    expect(asFlag.stderr).toMatch(/^convoduck: the routing key is never taken as a flag — set CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE/);
    expect(asFlag.stderr).not.toContain(ROUTING_KEY);
    const none = await runCli(['alert', '--db', db, '--rules', rules(0, 0.3, 0.0001), '--webhook-format', 'pagerduty']);
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^convoduck: --webhook-format pagerduty needs the routing key — /)]);
    const badRunbook = join(dir, 'bad-runbook.toml');
    writeFileSync(badRunbook, readFileSync(rules(0, 0.3, 0.0001), 'utf8').replace(RUNBOOK, 'wiki/runbooks'));
    const refused = await runCli(['alert', '--rules', badRunbook, '--check']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(/^convoduck: .*bad-runbook\.toml line 5: rule "tool-failures": runbook_url "wiki\/runbooks" is not an http\(s\) address/);
    const badLink = await runCli(['alert', '--db', db, '--rules', rules(0, 0.3, 0.0001), '--external-url', 'https://user:pw@reports.example.com/']);
    expect(badLink.code).toBe(2);
    expect(badLink.stderr).toMatch(/^convoduck: --external-url holds a user or password/);
  }, 300_000);
});

/** The schema version whose migration adds alert_evaluations.volume. */
const VOLUME_SCHEMA = 22;

describe('schema 22', () => {
  it('a database of schema 21 gets alert_evaluations.volume: empty in the rows before, each rule’s volume after', async () => {
    const db = join(dir, `copy-${++copies}.duckdb`);
    copyFileSync(golden, db);
    const at = new Date(TODAY - DAY).toISOString();
    expect((await runCli(['alert', '--db', db, '--rules', rules(2, 2, 100), '--at', at])).code).toBe(0);
    await Database.with(db, async (d) => {
      await d.run(`ALTER TABLE alert_evaluations DROP COLUMN volume`);
      await d.run(`UPDATE convoduck_meta SET value = ? WHERE key = 'schema_version'`, [String(VOLUME_SCHEMA - 1)]);
    });
    const res = await runCli(['alert', '--db', db, '--rules', rules(2, 2, 100), '--at', new Date(TODAY).toISOString()]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`from schema ${VOLUME_SCHEMA - 1} to ${SCHEMA_VERSION}`);
    const rows = await Database.with(db, (d) => d.all(`SELECT period_start, rule, group_key, volume FROM alert_evaluations ORDER BY ALL`), { readOnly: true });
    const before = rows.filter((r) => new Date(r.period_start as Date).getTime() < YESTERDAY);
    const after = rows.filter((r) => new Date(r.period_start as Date).getTime() === YESTERDAY);
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((r) => r.volume === null)).toBe(true);
    // the volume rule has no volume column; the connection rule's volume is each connection's calls
    expect(after.filter((r) => r.rule === 'volume').map((r) => r.volume)).toEqual([null]);
    const calls = await Database.with(
      db,
      (d) =>
        d.all(
          `SELECT t.connection_id AS id, count(*)::DOUBLE AS calls FROM tool_calls c JOIN tools t ON t.slug = c.slug
           WHERE c.called_at >= ?::TIMESTAMPTZ AND c.called_at < ?::TIMESTAMPTZ GROUP BY 1`,
          [new Date(YESTERDAY).toISOString(), new Date(TODAY).toISOString()],
        ),
      { readOnly: true },
    );
    const stored = after.filter((r) => r.rule === 'tool-failures' && (r.volume as number) > 0);
    expect(stored.length).toBeGreaterThan(0);
    for (const r of stored) expect(r.volume).toBe(calls.find((c) => c.id === (JSON.parse(r.group_key as string) as { connection_id: string }).connection_id)?.calls);
  }, 300_000);
});
