// `alert` judges the server's periods on the server's clock: a server whose clock runs three hours
// behind this machine's (the skew the sync measured from its Date header) has its last complete
// hour three hours before ours. Judged on our clock, that hour would lie in the server's future,
// hold no conversation yet, and fire a volume rule every hour; judged on its clock, the value is
// the count the simulator's records have in that hour.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb, tempDir } = scratch('alerts-server-clock', { rateLimit: 100_000 });

const HOUR = 3_600_000;
const SKEW_SECONDS = -3 * 3600;

const RULES = `
[[rule]]
name = "quiet-hour"
report = "outcomes"
column = "conversations"
group = ["space"]
period = "hour"
kind = "threshold"
warn_below = 1
`;

describe('alert on a server whose clock runs three hours behind', () => {
  it('judges the server’s last complete hour, with the count its records have', async () => {
    const sim = await simulator({ seed: 83, conversations: 900, days: 1, clockSkewSeconds: SKEW_SECONDS });
    const db = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey };
    const synced = await runCli(['sync', '--db', db], env);
    expect(synced.code, synced.stderr).toBe(0);
    const rules = join(tempDir(), 'rules.toml');
    writeFileSync(rules, RULES);

    const before = Date.now();
    const run = await runCli(['alert', '--db', db, '--rules', rules, '--json']);
    const after = Date.now();
    expect([0, 10], run.stderr).toContain(run.code);
    const rows = await Database.with(db, (d) => d.all<{ rule: string; period_start: Date; value: number; level: string }>(`SELECT rule, period_start, value, level FROM alert_evaluations ORDER BY rule`), { readOnly: true });
    expect(rows.map((r) => r.rule), run.stderr).toEqual(['quiet-hour']);
    const quiet = rows[0]!;

    // the hour before the one the server's clock was in during the run (either side of an hour's turn)
    const serverHours = [before, after].map((t) => t + SKEW_SECONDS * 1000).map((t) => t - (t % HOUR) - HOUR);
    const start = new Date(quiet.period_start).getTime();
    expect(serverHours).toContain(start);
    const inHour = sim.dataset.records.filter((r) => r.startMs >= start && r.startMs < start + HOUR).length;
    expect(inHour).toBeGreaterThan(0);
    expect(quiet.value).toBe(inHour);
    expect(quiet.level).toBe('ok');
    expect(JSON.parse(run.stdout).firing).toEqual([]);
    expect(run.code).toBe(0);
  }, 180_000);
});
