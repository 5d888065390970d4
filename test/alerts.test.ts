// `convoduck alert` over real HTTP and a real DuckDB file: a rules file checked line by line
// (exit 2, nothing stored), a live run that stores evaluations and opens, keeps and resolves one
// alert episode per group, and a backtest whose firing days equal those counted again from the
// simulator's own records.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { runCli } from './support/cli.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';

const EXAMPLE = new URL('../docs/alerts.example.toml', import.meta.url).pathname;
const DAY = 86_400_000;

let sim: Simulator;
let dir: string;
let golden: string;
let copies = 0;

beforeAll(async () => {
  sim = await startSimulator({ seed: 37, conversations: 700, days: 21, rateLimit: 100_000 });
  dir = mkdtempSync(join(tmpdir(), 'convoduck-alerts-'));
  golden = join(dir, 'golden.duckdb');
  const synced = await runCli(['sync', '--db', golden], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
  expect(synced.code, synced.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function freshCopy(): string {
  const path = join(dir, `copy-${++copies}.duckdb`);
  copyFileSync(golden, path);
  return path;
}

function rulesFile(text: string): string {
  const path = join(dir, `rules-${++copies}.toml`);
  writeFileSync(path, text);
  return path;
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function rows<T = Record<string, unknown>>(dbPath: string, sql: string): Promise<T[]> {
  return Database.with(dbPath, (db) => db.all(sql) as Promise<T[]>, { readOnly: true });
}

/** Conversations per UTC day start, counted from the simulator's records. */
function conversationsPerDay(): Map<number, number> {
  const days = new Map<number, number>();
  for (const r of sim.dataset.records) {
    const day = r.startMs - (r.startMs % DAY);
    days.set(day, (days.get(day) ?? 0) + 1);
  }
  return days;
}

const perConnection = (bound: string) => `
[[rule]]
name = "failing-connection"
report = "connection_health"
column = "failure_rate"
group = ["space", "connection_id"]
period = "day"
kind = "threshold"
${bound}
volume_column = "calls"
min_volume = 1
`;

describe('the rules file', () => {
  it('the shipped example is valid', async () => {
    const res = await runCli(['alert', '--rules', EXAMPLE, '--check']);
    expect(res.stderr).toMatch(/7 rules, all valid/);
    expect(res.code).toBe(0);
  });

  const bad: [string, string, RegExp][] = [
    ['an unknown report', perConnection('warn_above = 0.5').replace('connection_health', 'connection_heath'), /line 4: rule "failing-connection": report "connection_heath" does not exist/],
    ['an unknown column', perConnection('warn_above = 0.5').replace('"failure_rate"', '"failure_rat"'), /line 5: .*"failure_rat" is not a column of report connection_health/],
    ['an unknown kind', perConnection('warn_above = 0.5').replace('"threshold"', '"treshold"'), /line 8: .*kind "treshold" is not one of threshold, change, anomaly, freshness/],
    ['an unknown key', perConnection('warn_abov = 0.5'), /line 9: .*unknown key "warn_abov"/],
    ['no bound', perConnection(''), /line 2: .*no bound/],
    ['broken TOML', perConnection('warn_above = '), /line 9: not valid TOML/],
  ];
  for (const [what, text, message] of bad) {
    it(`refuses ${what}: exit 2, one line naming the line, the database unchanged`, async () => {
      const db = freshCopy();
      const before = sha(db);
      const res = await runCli(['alert', '--db', db, '--rules', rulesFile(text)]);
      expect(res.code).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/^convoduck: .*rules-\d+\.toml line \d+/);
      expect(res.stderr).toMatch(message);
      expect(sha(db)).toBe(before);
    });
  }
});

describe('alert', () => {
  it('stores each value, opens one episode per firing group, keeps it across runs and resolves it', async () => {
    const db = freshCopy();
    const firing = rulesFile(perConnection('warn_above = 0'));
    const first = await runCli(['alert', '--db', db, '--rules', firing, '--json']);
    expect(first.code, first.stderr).toBe(10);
    const outcome = JSON.parse(first.stdout) as { firing: { rule: string; labels: Record<string, string> }[]; started: unknown[] };
    const [{ day }] = (await rows<{ day: Date }>(db, `SELECT date_trunc('day', now() - INTERVAL 1 DAY) AS day`)) as [{ day: Date }];
    const failing = await rows<{ connection_id: string }>(
      db,
      `SELECT DISTINCT t.connection_id FROM tool_calls c JOIN tools t ON t.slug = c.slug
       WHERE c.status <> 'ok' AND c.called_at >= '${day.toISOString()}'::TIMESTAMPTZ AND c.called_at < '${day.toISOString()}'::TIMESTAMPTZ + INTERVAL 1 DAY
       ORDER BY 1`,
    );
    expect(failing.length).toBeGreaterThan(0);
    expect(outcome.firing.map((a) => a.labels.connection_id).sort()).toEqual(failing.map((f) => f.connection_id));
    expect(outcome.started).toHaveLength(failing.length);
    expect(first.stderr.trim().split('\n').filter((l) => l.startsWith('FIRING warn failing-connection'))).toHaveLength(failing.length);
    const stored = await rows<{ n: number }>(db, `SELECT count(*)::INTEGER AS n FROM alert_evaluations WHERE level = 'warn'`);
    expect(stored[0]!.n).toBe(failing.length);

    const second = await runCli(['alert', '--db', db, '--rules', firing, '--json']);
    expect(second.code).toBe(10);
    expect(JSON.parse(second.stdout).started).toEqual([]);
    const states = await rows<{ n: number; open: number }>(db, `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE resolved_at IS NULL)::INTEGER AS open FROM alert_states`);
    expect(states[0]).toEqual({ n: failing.length, open: failing.length });

    const quiet = await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 2')), '--json']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout).resolved).toHaveLength(failing.length);
    const after = await rows<{ open: number }>(db, `SELECT count(*) FILTER (WHERE resolved_at IS NULL)::INTEGER AS open FROM alert_states`);
    expect(after[0]!.open).toBe(0);
  }, 300_000);
});

describe('alert --backtest', () => {
  it('fires on exactly the days the simulator’s records have fewer conversations than the bound', async () => {
    const counts = conversationsPerDay();
    const today = Date.now() - (Date.now() % DAY);
    const from = today - 14 * DAY;
    const inRange = [...counts.entries()].filter(([d]) => d >= from && d < today);
    const bound = [...inRange.map(([, n]) => n)].sort((a, b) => a - b)[Math.floor(inRange.length / 2)]!;
    const rules = rulesFile(`
[[rule]]
name = "quiet-day"
report = "outcomes"
column = "conversations"
group = ["space"]
period = "day"
kind = "threshold"
warn_below = ${bound}
`);
    const db = freshCopy();
    const before = sha(db);
    const res = await runCli(['alert', '--db', db, '--rules', rules, '--backtest', '--since', new Date(from).toISOString().slice(0, 10), '--json']);
    expect(res.code, res.stderr).toBe(0);
    const result = JSON.parse(res.stdout) as { episodes: { fired_at: string; cleared_at: string | null; labels: { space: string } }[] };
    const firedDays = result.episodes.flatMap((e) => {
      const end = e.cleared_at === null ? today : Date.parse(e.cleared_at);
      return Array.from({ length: (end - Date.parse(e.fired_at)) / DAY }, (_, i) => Date.parse(e.fired_at) + i * DAY);
    });
    const expected = inRange.filter(([, n]) => n < bound).map(([d]) => d).sort((a, b) => a - b);
    expect(expected.length).toBeGreaterThan(0);
    expect(firedDays.sort((a, b) => a - b)).toEqual(expected);
    expect(new Set(result.episodes.map((e) => e.labels.space))).toEqual(new Set([sim.dataset.space.slug]));
    // each episode in words: its worst day's count from the records, the bound, and the group's usual
    // count (the median of the days judged ok before it in the replay) as a notification says them
    const lines = res.stderr.split('\n').filter((l) => /^ {2}warn for \d+ days?, /.test(l));
    expect(lines).toHaveLength(result.episodes.length);
    for (const e of result.episodes as unknown as { worst_at: string; expected: number | null; periods: number; summary: string }[]) {
      const worst = Date.parse(e.worst_at);
      const okBefore = inRange.filter(([d, n]) => d < worst && n >= bound).map(([, n]) => n).sort((a, b) => a - b).slice(-14);
      const median = okBefore.length === 0 ? null : okBefore.length % 2 ? okBefore[okBefore.length >> 1]! : (okBefore[okBefore.length / 2 - 1]! + okBefore[okBefore.length / 2]!) / 2;
      expect(e.expected).toBe(median);
      expect(e.summary).toContain(`${sim.dataset.space.slug}: ${counts.get(worst)} conversations on ${e.worst_at.slice(0, 10)}`);
      expect(e.summary).toMatch(new RegExp(`; warn below ${bound}$`));
      if (median !== null) expect(e.summary).toContain(`; usually ${Number.isInteger(median) ? median : median.toFixed(1)}`);
      expect(lines.some((l) => l.endsWith(`: ${e.summary}`) && l.includes(` for ${e.periods} day`))).toBe(true);
    }
    expect(sha(db)).toBe(before);
  }, 300_000);
});

describe('alert, a rule that can judge nothing', () => {
  it('stores each skipped group with its reason, and the run line says how many and why', async () => {
    const db = freshCopy();
    const res = await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 0').replace('min_volume = 1', 'min_volume = 1000000')), '--json']);
    expect(res.code, res.stderr).toBe(0);
    const stored = await rows<{ level: string; reason: string | null; n: number }>(db, `SELECT level, reason, count(*)::INTEGER AS n FROM alert_evaluations GROUP BY ALL`);
    expect(stored).toHaveLength(1);
    const [{ level, reason, n }] = stored as [{ level: string; reason: string; n: number }];
    expect({ level, reason }).toEqual({ level: 'skipped', reason: 'volume' });
    const summary = (JSON.parse(res.stdout) as { rules: { rule: string; evaluations: number; judged: number; skipped: { volume: number } }[] }).rules;
    expect(summary).toEqual([expect.objectContaining({ rule: 'failing-connection', evaluations: n, judged: 0, skipped: expect.objectContaining({ volume: n }) })]);
    expect(res.stderr).toMatch(new RegExp(`^alert: 1 rule as of \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC: 0 groups judged, ${n} skipped \\(${n} with a volume below min_volume\\); 0 firing \\(0 new\\), 0 resolved$`, 'm'));
  }, 120_000);
});

/** The schema version whose migration adds the alert tables. */
const ALERT_TABLES_SCHEMA = 16;

describe('schema', () => {
  it('a database of the schema before the alert tables gets them, empty, when alert opens it', async () => {
    const db = freshCopy();
    await Database.with(db, async (d) => {
      await d.run(`DROP TABLE alert_evaluations; DROP TABLE alert_states`);
      await d.run(`UPDATE convoduck_meta SET value = ? WHERE key = 'schema_version'`, [String(ALERT_TABLES_SCHEMA - 1)]);
    });
    const res = await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 2'))]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain(`from schema ${ALERT_TABLES_SCHEMA - 1} to ${SCHEMA_VERSION}`);
    const version = await rows<{ value: string }>(db, `SELECT value FROM convoduck_meta WHERE key = 'schema_version'`);
    expect(version[0]!.value).toBe(String(SCHEMA_VERSION));
    const states = await rows<{ n: number }>(db, `SELECT count(*)::INTEGER AS n FROM alert_states`);
    expect(states[0]!.n).toBe(0);
    const evaluations = await rows<{ n: number }>(db, `SELECT count(*)::INTEGER AS n FROM alert_evaluations`);
    expect(evaluations[0]!.n).toBeGreaterThan(0);
  }, 300_000);
});

describe('alert notifications', () => {
  it('posts one firing and one resolved notification per alert, whatever the receiver did in between', async () => {
    const receiver = await startWebhookReceiver('secret-token-4711', 'down');
    const { accepted } = receiver;
    const url = receiver.url;
    const hookFile = join(dir, 'webhook-url');
    writeFileSync(hookFile, `${url}\n`);
    try {
      const db = freshCopy();
      const firing = rulesFile(perConnection('warn_above = 0'));
      const run = async (rules: string) => {
        const res = await runCli(['alert', '--db', db, '--rules', rules, '--json', '--webhook-timeout', '1s'], { CONVODUCK_ALERT_WEBHOOK_URL_FILE: hookFile });
        expect(res.stderr + res.stdout).not.toContain('secret-token-4711');
        return res;
      };

      const down = await run(firing);
      expect(down.code).toBe(10);
      const groups = (JSON.parse(down.stdout) as { firing: unknown[] }).firing.length;
      expect(groups).toBeGreaterThan(0);
      expect(down.stderr).toMatch(/webhook did not take a notification \(HTTP 500\): \d+ still owed/);
      receiver.mode = 'hang';
      const hung = await run(firing);
      expect(hung.code).toBe(10);
      expect(hung.stderr).toMatch(/no answer within 1 s/);
      expect(accepted).toEqual([]);
      expect(receiver.requests).toBe(2); // the first failure ends a run's deliveries

      receiver.mode = 'up';
      expect((await run(firing)).code).toBe(10);
      expect((await run(firing)).code).toBe(10);
      const relaxed = rulesFile(perConnection('warn_above = 2'));
      expect((await run(relaxed)).code).toBe(0);
      expect((await run(relaxed)).code).toBe(0);

      const firingSent = accepted.filter((b) => b.status === 'firing');
      const resolvedSent = accepted.filter((b) => b.status === 'resolved');
      expect(firingSent).toHaveLength(groups);
      expect(resolvedSent).toHaveLength(groups);
      const prints = (list: typeof accepted) => list.map((b) => b.alerts[0]!.fingerprint).sort();
      expect(new Set(prints(firingSent)).size).toBe(groups);
      expect(prints(resolvedSent)).toEqual(prints(firingSent));
      for (const b of accepted) {
        expect(b.alerts).toHaveLength(1);
        expect(b.alerts[0]!.labels).toMatchObject({ alertname: 'failing-connection', severity: 'warn' });
        expect(b.alerts[0]!.status).toBe(b.status);
        expect(b.alerts[0]!.endsAt === '0001-01-01T00:00:00Z').toBe(b.status === 'firing');
      }
      expect(readFileSync(db).includes('secret-token-4711')).toBe(false);
      const owed = await rows<{ n: number }>(db, `SELECT count(*)::INTEGER AS n FROM alert_states WHERE notified_firing_at IS NULL OR notified_resolved_at IS NULL`);
      expect(owed[0]!.n).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 300_000);
});

describe('--metrics-file', () => {
  it('writes the job’s health as Prometheus text whose values are those of status and sync_runs', async () => {
    const db = freshCopy();
    const prom = join(dir, 'convoduck.prom');
    const synced = await runCli(['sync', '--db', db, '--metrics-file', prom], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey });
    expect(synced.code, synced.stderr).toBe(0);
    const families = () => new Map(parsePrometheusTextFormat(readFileSync(prom, 'utf8')).map((f) => [f.name, f.metrics]));
    const value = (name: string, labels: Record<string, string>) => {
      const found = families().get(name)?.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v)) ?? [];
      expect(found, name).toHaveLength(1);
      return Number(found[0]!.value);
    };
    const status = JSON.parse((await runCli(['status', '--db', db, '--json'])).stdout) as {
      spaces: { space: string; stored: number; lastRun: { status: string; startedAt: string; endedAt: string } }[];
    };
    const space = sim.dataset.space.slug;
    const mine = status.spaces.find((s) => s.space === space)!;
    expect(mine.lastRun.status).toBe('ok');
    expect(value('convoduck_last_success_timestamp_seconds', { space })).toBeCloseTo(Date.parse(mine.lastRun.endedAt) / 1000, 2);
    expect(value('convoduck_last_success_duration_seconds', { space })).toBeCloseTo((Date.parse(mine.lastRun.endedAt) - Date.parse(mine.lastRun.startedAt)) / 1000, 2);
    expect(value('convoduck_conversations_stored', { space })).toBe(mine.stored);
    const [run] = await rows<Record<string, number>>(
      db,
      `SELECT requests, throttled, retries, details_set_aside, conversations_deleted, errors, clock_skew_seconds FROM sync_runs WHERE space = '${space}' ORDER BY run_id DESC LIMIT 1`,
    );
    expect(run!.requests).toBeGreaterThan(0);
    expect(value('convoduck_last_run_requests', { space })).toBe(run!.requests);
    expect(value('convoduck_last_run_throttled', { space })).toBe(run!.throttled);
    expect(value('convoduck_last_run_retries', { space })).toBe(run!.retries);
    expect(value('convoduck_last_run_set_aside', { space })).toBe(run!.details_set_aside);
    expect(value('convoduck_last_run_deleted', { space })).toBe(run!.conversations_deleted);
    expect(run!.clock_skew_seconds).not.toBeNull();
    expect(value('convoduck_last_run_clock_skew_seconds', { space })).toBe(run!.clock_skew_seconds);
    expect(value('convoduck_alerts_firing', { severity: 'warn' })).toBe(0);

    const alerted = await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 0')), '--json', '--metrics-file', prom]);
    expect(alerted.code).toBe(10);
    expect(value('convoduck_alerts_firing', { severity: 'warn' })).toBe((JSON.parse(alerted.stdout) as { firing: unknown[] }).firing.length);
    expect(value('convoduck_alerts_firing', { severity: 'error' })).toBe(0);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  }, 300_000);
});

describe('report --html', () => {
  it('shows what is firing at the top: rule, group, value against its bound, since when; nothing once resolved', async () => {
    const db = freshCopy();
    const out = join(dir, `page-${++copies}`);
    const fired = await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 0')), '--json']);
    expect(fired.code).toBe(10);
    const firing = (JSON.parse(fired.stdout) as { firing: { labels: Record<string, string>; value: number; firing_since: string }[] }).firing;
    expect((await runCli(['report', '--html', '--db', db, '--out', out])).code).toBe(0);
    const page = readFileSync(join(out, 'report.html'), 'utf8');
    const section = /<section class="firing" id="firing">([\s\S]*?)<\/section>/.exec(page)?.[1];
    expect(section).toBeDefined();
    expect(page).toMatch(/<main>\n<section class="firing" id="firing">/);
    const rowsShown = [...section!.matchAll(/<tr data-level="warn">(.*?)<\/tr>/g)].map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]));
    expect(rowsShown).toHaveLength(firing.length);
    for (const a of firing) {
      const row = rowsShown.find((r) => r[2]!.includes(`connection_id=${a.labels.connection_id}`))!;
      expect(row[1]).toBe('failing-connection');
      expect(Number(row[3])).toBeCloseTo(a.value, 3);
      expect(row[4]).toBe('0');
      expect(row[5]).toBe(a.firing_since.replace('.000Z', 'Z'));
    }
    expect((await runCli(['alert', '--db', db, '--rules', rulesFile(perConnection('warn_above = 2'))])).code).toBe(0);
    expect((await runCli(['report', '--html', '--db', db, '--out', out])).code).toBe(0);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).not.toContain('id="firing"');
  }, 300_000);
});
