// Live runs and the backtest judge every period alike: a small space with a connection outage,
// an agent whose transfers jump and a day without any conversation, synced once over real HTTP;
// then every hour of three days played as a live run (`runAlerts` with `at` that hour, storing
// its values and alert states in the file), and one backtest over the same periods. The episodes
// the live runs left in alert_states must be the backtest's, episode by episode. The rules are
// one of each kind, with short histories, so that 72 live runs stay cheap.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backtestAlerts } from '../src/alerts/backtest.js';
import { runAlerts } from '../src/alerts/run.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// A fixed clock for the simulator: the same history (and the same hours too small to judge) whenever the test runs.
const SIMULATED_NOW = new Date('2026-11-20T00:00:00Z');
const PLAYED_DAYS = 3;
const FIRST = SIMULATED_NOW.getTime() - PLAYED_DAYS * DAY;

const RULES = `
[[rule]]
name = "tool-failures-hourly"
report = "connection_health"
column = "failure_rate"
group = ["space", "connection_id", "connection_name"]
period = "hour"
kind = "threshold"
warn_above = 0.5
error_above = 0.8
volume_column = "calls"
min_volume = 2

[[rule]]
name = "volume-drop"
report = "outcomes"
column = "conversations"
group = ["space"]
period = "day"
kind = "change"
against = "previous"
direction = "down"
warn = 0.5
error = 0.75
min_expected = 3
confidence = 0.99

[[rule]]
name = "transfers-per-agent"
report = "transfers"
column = "transfer_rate"
group = ["space", "agent_id", "agent_name"]
period = "day"
kind = "anomaly"
history = 4
min_points = 3
direction = "up"
warn_z = 3
error_z = 5
floor = 0.3
volume_column = "ended"
min_volume = 4
confidence = 0.999

[[rule]]
name = "no-conversations"
kind = "freshness"
of = "conversations"
period = "hour"
warn_hours = 10
error_hours = 20
usual_min = 20
`;

let sim: Simulator;
let dir: string;
let db: string;
let rules: string;

beforeAll(async () => {
  sim = await startSimulator({
    seed: 45,
    now: SIMULATED_NOW,
    conversations: 20 * 8,
    days: 8,
    rateLimit: 1_000_000,
    incidents: { toolOutage: { daysAgo: 3, fromHour: 9, hours: 4 }, quietDay: { daysAgo: 2, fraction: 0 }, transferJump: { daysAgo: 1 } },
  });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-alerts-live-backtest-'));
  db = join(dir, 'live.duckdb');
  rules = join(dir, 'alerts.toml');
  writeFileSync(rules, RULES);
  const synced = await runCli(['sync', '--db', db], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
  expect(synced.code, synced.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const key = (rule: string, group: string, from: string, to: string | null) => `${rule} ${group} ${from} → ${to ?? 'still firing'}`;

describe('live runs played hour by hour against one backtest', () => {
  it('leave exactly the episodes the backtest finds, and the day without conversations fires the volume rule', async () => {
    // every hour of the played days, as the scheduled job would run: the first judges the hour and the day before FIRST
    for (let at = FIRST; at <= SIMULATED_NOW.getTime(); at += HOUR) {
      await runAlerts({ file: rules, dbPath: db, at: new Date(at), now: new Date() });
    }
    const live = await Database.with(
      db,
      (d) => d.all<{ rule: string; group_key: string; firing_since: Date; resolved_at: Date | null }>(`SELECT rule, group_key, firing_since, resolved_at FROM alert_states`),
      { readOnly: true },
    );
    const backtest = await backtestAlerts({ file: rules, dbPath: db, from: new Date(FIRST - HOUR), now: SIMULATED_NOW });
    const fromLive = live.map((s) => key(s.rule, s.group_key, new Date(s.firing_since).toISOString(), s.resolved_at === null ? null : new Date(s.resolved_at).toISOString())).sort();
    const fromBacktest = backtest.episodes.map((e) => key(e.rule, JSON.stringify(e.labels), e.fired_at, e.cleared_at)).sort();
    expect(fromLive).toEqual(fromBacktest);

    // what was planted is among them: the comparison is of something
    const space = sim.dataset.space.slug;
    const day = (daysAgo: number) => new Date(SIMULATED_NOW.getTime() - daysAgo * DAY).toISOString();
    expect(fromBacktest.filter((e) => e.startsWith('tool-failures-hourly ')).length).toBeGreaterThan(0);
    const quiet = sim.dataset.records.filter((r) => r.startMs >= SIMULATED_NOW.getTime() - 2 * DAY && r.startMs < SIMULATED_NOW.getTime() - DAY);
    expect(quiet).toHaveLength(0);
    // the day without any conversation fires; the next, against a day of none, has nothing to compare with
    expect(fromBacktest).toContain(key('volume-drop', JSON.stringify({ space }), day(2), day(1)));
    expect(fromBacktest.some((e) => e.startsWith('transfers-per-agent ') && e.includes(` ${day(1)} → `))).toBe(true);
    expect(fromBacktest.some((e) => e.startsWith('no-conversations '))).toBe(true);
    // and so are periods too small to judge, which end an episode in both alike
    const skipped = backtest.rules.reduce((n, r) => n + r.evaluations - r.judged, 0);
    expect(skipped).toBeGreaterThan(0);
  }, 300_000);
});
