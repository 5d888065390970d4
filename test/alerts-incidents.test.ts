// The shipped example rules against planted incidents at two volumes: for each size, two spaces
// synced into one database over real HTTP, one with a connection outage, a quiet day and an agent
// whose transfers jump, the other with none. `alert --backtest` must find each incident in its
// period and group at about 20 conversations a day as at 100, and fire nothing on the control
// space. The small space's quiet day has no conversation at all: the volume rule must see it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';

const EXAMPLE = new URL('../docs/alerts.example.toml', import.meta.url).pathname;
const DAY = 86_400_000;
const DAYS = 30;
const today = Date.now() - (Date.now() % DAY);

/** The number of days back, at or after `near`, to a Tuesday, Wednesday or Thursday (UTC): a day of full volume. */
function weekdayAgo(near: number): number {
  for (let k = near; ; k++) if ([2, 3, 4].includes(new Date(today - k * DAY).getUTCDay())) return k;
}
const JUMP = weekdayAgo(18);
const OUTAGE = weekdayAgo(10);
const QUIET = weekdayAgo(3);

interface Size {
  name: string;
  perDay: number;
  /** share of the quiet day's usual conversations that happen */
  quiet: number;
}
const SIZES: Size[] = [
  { name: 'small', perDay: 20, quiet: 0 },
  { name: 'large', perDay: 100, quiet: 0.2 },
];

interface Episode {
  rule: string;
  labels: Record<string, string>;
  fired_at: string;
}
interface Summary {
  rule: string;
  evaluations: number;
  groups: number;
  groups_judged: number;
  judged: number;
  skipped: Record<string, number>;
}

const sims: Simulator[] = [];
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'convoduck-alert-incidents-'));
});

afterAll(async () => {
  for (const sim of sims) await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(SIZES)('alert --backtest with the example rules over planted incidents, $name space ($perDay a day)', (size) => {
  let planted: Simulator;
  let control: Simulator;
  let db: string;

  beforeAll(async () => {
    const common = { conversations: size.perDay * DAYS, days: DAYS, rateLimit: 1_000_000 };
    planted = await startSimulator({
      ...common,
      seed: 41,
      incidents: { toolOutage: { daysAgo: OUTAGE }, quietDay: { daysAgo: QUIET, fraction: size.quiet }, transferJump: { daysAgo: JUMP } },
    });
    control = await startSimulator({ ...common, seed: 42 });
    sims.push(planted, control);
    db = join(dir, `${size.name}.duckdb`);
    for (const sim of [planted, control]) {
      const synced = await runCli(['sync', '--db', db], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
      expect(synced.code, synced.stderr).toBe(0);
    }
  }, 300_000);

  it('finds each incident in its period and group, nothing on the control space, and says what it judged', async () => {
    const res = await runCli(['alert', '--db', db, '--rules', EXAMPLE, '--backtest', '--since', '30d', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const { episodes, rules } = JSON.parse(res.stdout) as { episodes: Episode[]; rules: Summary[] };
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
    const quietDay = planted.dataset.records.filter((r) => r.startMs >= today - QUIET * DAY && r.startMs < today - (QUIET - 1) * DAY);
    if (size.quiet === 0) expect(quietDay).toHaveLength(0);
    const jumped = episodes.filter((e) => e.rule === 'transfers-per-agent' && e.fired_at === day(JUMP) && e.labels.space === space);
    expect(jumped, res.stderr).toHaveLength(1);
    const agent = planted.dataset.agents.find((a) => a.id === jumped[0]!.labels.agent_id)!;
    const after = planted.dataset.records.filter((r) => r.summary.agent_id === agent.id && r.startMs >= today - JUMP * DAY);
    expect(after.filter((r) => r.summary.outcome === 'transferred').length / after.length).toBeGreaterThan(0.6);

    expect(episodes.filter((e) => e.labels.space === control.dataset.space.slug), res.stderr).toEqual([]);

    // every rule that reads a report judged groups at this volume, and says what it skipped and why
    for (const name of ['tool-failures-per-connection', 'transfers-per-agent', 'volume-drop', 'early-hangups', 'slow-answers-p90']) {
      const r = rules.find((x) => x.rule === name)!;
      expect(r.judged, `${name}: ${JSON.stringify(r)}`).toBeGreaterThan(0);
      expect(r.groups_judged, name).toBeGreaterThan(0);
      expect(r.judged + Object.values(r.skipped).reduce((a, b) => a + b, 0), name).toBe(r.evaluations);
    }
    for (const r of rules) expect(res.stderr).toContain(`${r.rule}: `);
  }, 120_000);
});
