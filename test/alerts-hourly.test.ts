// The scheduled job played hour by hour: a simulator with a connection whose tool calls all fail
// for three hours of one day, and for each played hour one `sync` then `alert --at` that hour,
// with the shipped example rules and an hourly rule for the outage, against a webhook receiver
// on 127.0.0.1 that answers 500, hangs, and comes back. The outage must reach the receiver as
// exactly one firing and one resolved notification, whatever the receiver did in between, and
// neither sync nor alert may fail because of it.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { startWebhookReceiver, type PostedAlerts, type ReceiverMode } from './support/webhook-receiver.js';

const EXAMPLE = new URL('../docs/alerts.example.toml', import.meta.url).pathname;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// The simulator's clock starts at a fixed instant, so the generated history (how many calls each
// hour holds, and so whether the rule may judge it) is the same whenever the test runs; `alert
// --at` plays the hours of the day before it, a Thursday of full volume.
const SIMULATED_NOW = new Date('2026-11-20T06:00:00Z');
const DAYS_AGO = 1;
const DAY_START = SIMULATED_NOW.getTime() - (SIMULATED_NOW.getTime() % DAY) - DAYS_AGO * DAY;
const OUTAGE_FROM = 9;
const OUTAGE_HOURS = 3;
const at = (hour: number) => new Date(DAY_START + hour * HOUR).toISOString();

const HOURLY_RULE = `
# The outage seen hour by hour: the example's connection rule over one hour.
[[rule]]
name = "tool-failures-per-connection-hourly"
description = "Tool calls through this connection failed for the whole last hour"
report = "connection_health"
column = "failure_rate"
group = ["space", "connection_id", "connection_name"]
period = "hour"
kind = "threshold"
warn_above = 0.5
error_above = 0.8
volume_column = "calls"
min_volume = 5
`;


let sim: Simulator;
let dir: string;
let rules: string;
const env = () => ({ CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });

beforeAll(async () => {
  sim = await startSimulator({
    seed: 43,
    now: SIMULATED_NOW,
    // about a weekday's usual volume per day, and only the days up to the outage's
    conversations: 260 * (DAYS_AGO + 1),
    days: DAYS_AGO + 1,
    rateLimit: 1_000_000,
    incidents: { toolOutage: { daysAgo: DAYS_AGO, fromHour: OUTAGE_FROM, hours: OUTAGE_HOURS } },
  });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-alerts-hourly-'));
  rules = join(dir, 'alerts.toml');
  writeFileSync(rules, readFileSync(EXAMPLE, 'utf8') + HOURLY_RULE);
}, 300_000);

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rows<T = Record<string, unknown>>(dbPath: string, sql: string): Promise<T[]> {
  return Database.with(dbPath, (db) => db.all(sql) as Promise<T[]>, { readOnly: true });
}

/** The connection the outage hit: the one with the most tools (src/simulator/dataset/incidents.ts). */
function outageConnection(): string {
  const tools = (id: string) => sim.dataset.tools.filter((t) => t.connection_id === id).length;
  return [...sim.dataset.connections].sort((a, b) => tools(b.id) - tools(a.id))[0]!.id;
}

describe('hourly runs of sync and alert against a webhook that fails, hangs and comes back', () => {
  it('delivers exactly one firing and one resolved notification for the outage, never fails a run, and refuses to go back', async () => {
    const receiver = await startWebhookReceiver('secret-token-0937');
    const { accepted } = receiver;
    const hookFile = join(dir, 'webhook-url');
    writeFileSync(hookFile, `${receiver.url}\n`);
    const db = join(dir, 'job.duckdb');
    const connection = outageConnection();
    const space = sim.dataset.space.slug;

    // Each played run: the hour it is played at, what the receiver does, and the exit code alert owes.
    const plays: { hour: number; receiver: ReceiverMode; code: number; posts: number }[] = [
      { hour: 9, receiver: 'down', code: 0, posts: 0 }, // judges 08:00, before the outage: nothing owed
      { hour: 10, receiver: 'down', code: 10, posts: 1 }, // judges 09:00: fires; the receiver answers 500
      { hour: 11, receiver: 'hang', code: 10, posts: 1 }, // still firing; the receiver never answers
      { hour: 12, receiver: 'up', code: 10, posts: 1 }, // still firing; the owed firing notification arrives
      { hour: 12.5, receiver: 'up', code: 10, posts: 0 }, // the same hour judged again: nothing new
      { hour: 13, receiver: 'down', code: 0, posts: 1 }, // judges 12:00, after the outage: resolved; 500
      { hour: 14, receiver: 'up', code: 0, posts: 1 }, // the owed resolved notification arrives
    ];
    const sentAt: Record<number, [number, number]> = {};
    try {
      for (const play of plays) {
        const synced = await runCli(['sync', '--db', db], env());
        expect(synced.code, synced.stderr).toBe(0);
        receiver.mode = play.receiver;
        const before = receiver.requests;
        const started = Date.now();
        const res = await runCli(['alert', '--db', db, '--rules', rules, '--at', at(play.hour), '--json', '--webhook-timeout', '1s'], {
          CONVODUCK_ALERT_WEBHOOK_URL_FILE: hookFile,
        });
        sentAt[play.hour] = [started, Date.now()];
        expect(res.code, `--at ${at(play.hour)}: ${res.stderr}`).toBe(play.code);
        expect(receiver.requests - before, `posts at ${play.hour}`).toBe(play.posts);
        expect(res.stderr + res.stdout).not.toContain('secret-token-0937');
        const outcome = JSON.parse(res.stdout) as { as_of: string; firing: { rule: string; labels: Record<string, string> }[] };
        expect(outcome.as_of).toBe(at(play.hour));
        expect(outcome.firing.map((a) => [a.rule, a.labels.connection_id])).toEqual(play.code === 10 ? [['tool-failures-per-connection-hourly', connection]] : []);
        if (play.posts > 0 && play.receiver !== 'up') expect(res.stderr).toMatch(/webhook did not take a notification \((HTTP 500|no answer within 1 s)\): 1 still owed/);
      }
    } finally {
      await receiver.close();
    }

    // the outage's hours each had enough calls through the connection to be judged at all
    const perHour = await rows<{ hour: Date; calls: number }>(
      db,
      `SELECT date_trunc('hour', c.called_at) AS hour, count(*)::INTEGER AS calls FROM tool_calls c JOIN tools t ON t.slug = c.slug
       WHERE t.connection_id = '${connection}' AND c.called_at >= '${at(OUTAGE_FROM)}'::TIMESTAMPTZ AND c.called_at < '${at(OUTAGE_FROM + OUTAGE_HOURS)}'::TIMESTAMPTZ
       GROUP BY 1 ORDER BY 1`,
    );
    expect(perHour.map((r) => r.calls >= 5)).toEqual(Array(OUTAGE_HOURS).fill(true));

    // what the receiver took: one firing and one resolved post of the one alert, in that order
    expect(accepted.map((b) => b.status)).toEqual(['firing', 'resolved']);
    const [firing, resolved] = accepted.map((b) => b.alerts) as [PostedAlerts['alerts'], PostedAlerts['alerts']];
    for (const [alerts, status] of [[firing, 'firing'], [resolved, 'resolved']] as const) {
      expect(alerts).toHaveLength(1);
      expect(alerts[0]!.status).toBe(status);
      expect(alerts[0]!.labels).toMatchObject({ alertname: 'tool-failures-per-connection-hourly', severity: 'error', space, connection_id: connection });
      expect(alerts[0]!.startsAt).toBe(at(OUTAGE_FROM));
    }
    expect(firing[0]!.endsAt).toBe('0001-01-01T00:00:00Z');
    expect(resolved[0]!.endsAt).toBe(at(OUTAGE_FROM + OUTAGE_HOURS));
    expect(resolved[0]!.fingerprint).toBe(firing[0]!.fingerprint);

    // the episode as data: the periods it spans, and when the webhook took each notification
    const states = await rows<{ rule: string; firing_since: Date; last_period_start: Date; resolved_at: Date; notified_firing_at: Date; notified_resolved_at: Date }>(
      db,
      `SELECT rule, firing_since, last_period_start, resolved_at, notified_firing_at, notified_resolved_at FROM alert_states`,
    );
    expect(states).toHaveLength(1);
    const state = states[0]!;
    expect(state.rule).toBe('tool-failures-per-connection-hourly');
    expect(new Date(state.firing_since).toISOString()).toBe(at(OUTAGE_FROM));
    expect(new Date(state.last_period_start).toISOString()).toBe(at(OUTAGE_FROM + OUTAGE_HOURS - 1));
    expect(new Date(state.resolved_at).toISOString()).toBe(at(OUTAGE_FROM + OUTAGE_HOURS));
    const within = (d: Date, [from, to]: [number, number]) => new Date(d).getTime() >= from - 1000 && new Date(d).getTime() <= to + 1000;
    expect(within(state.notified_firing_at, sentAt[12]!)).toBe(true);
    expect(within(state.notified_resolved_at, sentAt[14]!)).toBe(true);
    const judged = await rows<{ period_start: Date; level: string }>(
      db,
      `SELECT period_start, level FROM alert_evaluations WHERE rule = 'tool-failures-per-connection-hourly' AND group_key LIKE '%${connection}%' ORDER BY period_start`,
    );
    expect(judged.map((j) => [new Date(j.period_start).toISOString(), j.level])).toEqual(
      [8, 9, 10, 11, 12, 13].map((h) => [at(h), h >= OUTAGE_FROM && h < OUTAGE_FROM + OUTAGE_HOURS ? 'error' : 'ok']),
    );

    // going back is refused (named by the first hour rule of the file, which never fired: its
    // evaluations alone hold it), and so are a time to come and --at with --backtest: one line, exit 2, nothing changed
    const sha = () => createHash('sha256').update(readFileSync(db)).digest('hex');
    const before = sha();
    const refused: [string[], RegExp][] = [
      [['--at', at(10)], new RegExp(`^convoduck: --at \\S+ asks for the hour from ${at(9)}, but rule "no-conversations" already judged the hour from ${at(13)} — alert states only move forward`)],
      [['--at', new Date(Date.now() + HOUR).toISOString()], /^convoduck: --at \S+ is in the future — /],
      [['--at', 'tuesday'], /^convoduck: --at "tuesday" is not a time/],
      [['--at', at(12), '--backtest'], /^convoduck: --at is for a live run/],
    ];
    for (const [args, message] of refused) {
      const res = await runCli(['alert', '--db', db, '--rules', rules, ...args]);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
    }
    expect(sha()).toBe(before);
    const again = await runCli(['alert', '--db', db, '--rules', rules, '--at', at(14.5)]);
    expect(again.code, again.stderr).toBe(0);
  }, 300_000);
});
