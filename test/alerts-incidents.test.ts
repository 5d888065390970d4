// The shipped example rules against planted incidents: two spaces synced into one database over
// real HTTP, one with a connection outage, a quiet day and an agent whose transfers jump, the
// other with none. `alert --backtest` must find each incident in its period and group, and fire
// nothing on the control space.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';

const EXAMPLE = new URL('../docs/alerts.example.toml', import.meta.url).pathname;
const DAY = 86_400_000;
const today = Date.now() - (Date.now() % DAY);

/** The number of days back, at or after `near`, to a Tuesday, Wednesday or Thursday (UTC): a day of full volume. */
function weekdayAgo(near: number): number {
  for (let k = near; ; k++) if ([2, 3, 4].includes(new Date(today - k * DAY).getUTCDay())) return k;
}
const JUMP = weekdayAgo(18);
const OUTAGE = weekdayAgo(10);
const QUIET = weekdayAgo(3);

let planted: Simulator;
let control: Simulator;
let dir: string;
let db: string;

beforeAll(async () => {
  planted = await startSimulator({
    seed: 41,
    conversations: 1500,
    days: 30,
    rateLimit: 1_000_000,
    incidents: { toolOutage: { daysAgo: OUTAGE }, quietDay: { daysAgo: QUIET }, transferJump: { daysAgo: JUMP } },
  });
  control = await startSimulator({ seed: 42, conversations: 1500, days: 30, rateLimit: 1_000_000 });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-alert-incidents-'));
  db = join(dir, 'two.duckdb');
  for (const sim of [planted, control]) {
    const synced = await runCli(['sync', '--db', db], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
    expect(synced.code, synced.stderr).toBe(0);
  }
}, 300_000);

afterAll(async () => {
  await planted?.close();
  await control?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Episode {
  rule: string;
  labels: Record<string, string>;
  fired_at: string;
}

describe('alert --backtest with the example rules over planted incidents', () => {
  it('finds each incident in its period and group, and nothing on the control space', async () => {
    const res = await runCli(['alert', '--db', db, '--rules', EXAMPLE, '--backtest', '--since', '30d', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const { episodes } = JSON.parse(res.stdout) as { episodes: Episode[] };
    const space = planted.dataset.space.slug;
    expect(control.dataset.space.slug).not.toBe(space);
    const day = (daysAgo: number) => new Date(today - daysAgo * DAY).toISOString();
    const found = (rule: string, labels: Record<string, string>, daysAgo: number) =>
      episodes.filter((e) => e.rule === rule && e.fired_at === day(daysAgo) && Object.entries(labels).every(([k, v]) => e.labels[k] === v));

    const connection = [...planted.dataset.connections].sort(
      (a, b) => planted.dataset.tools.filter((t) => t.connection_id === b.id).length - planted.dataset.tools.filter((t) => t.connection_id === a.id).length,
    )[0]!;
    expect(found('tool-failures-per-connection', { space, connection_id: connection.id }, OUTAGE), res.stderr).toHaveLength(1);
    expect(found('volume-drop', { space }, QUIET), res.stderr).toHaveLength(1);
    const jumped = episodes.filter((e) => e.rule === 'transfers-per-agent' && e.fired_at === day(JUMP) && e.labels.space === space);
    expect(jumped, res.stderr).toHaveLength(1);
    const agent = planted.dataset.agents.find((a) => a.id === jumped[0]!.labels.agent_id)!;
    const after = planted.dataset.records.filter((r) => r.summary.agent_id === agent.id && r.startMs >= today - JUMP * DAY);
    expect(after.filter((r) => r.summary.outcome === 'transferred').length / after.length).toBeGreaterThan(0.6);

    expect(episodes.filter((e) => e.labels.space === control.dataset.space.slug), res.stderr).toEqual([]);
  }, 300_000);
});
