// The scheduler recipes of docs/scheduling.md (and the README's cron line), taken from the docs as
// users copy them, with only the placeholders replaced (host → the simulator, paths → temp folders,
// key file → a temp file), then run once each the way their scheduler runs them. The "install" is
// a bin folder with a `convoduck` link to the built CLI, which is what `npm install -g` leaves.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Simulator } from '../src/simulator/index.js';
import { CLI, startCli } from './support/cli.js';
import { Database } from '../src/store/database.js';
import { place, recipe } from './support/doc-recipes.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';
import { parseUnit, runService, timeSpanMs, values } from './support/systemd-unit.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { simulator, tempDir } = scratch('recipes', { seed: 61, conversations: 120, rateLimit: 100_000 });
const HOST = 'https://<your-host>/api/v1';

/** A temp area: `bin` holds the installed `convoduck`, `home` the user's home, `key` the key file. */
function machine(sim: Simulator): { root: string; bin: string; home: string; key: string } {
  const root = tempDir();
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  mkdirSync(bin);
  mkdirSync(home);
  // npm install -g links the package's bin into PATH and makes its target executable.
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(bin, 'convoduck'));
  const key = join(root, 'key');
  writeFileSync(key, `${sim.apiKey}\n`, { mode: 0o600 });
  return { root, bin, home, key };
}

/** A detail answered by a redirect to another origin (a recorded error the next run retries), so that sync exits 1. */
function breakOne(sim: Simulator): void {
  const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
  sim.breakConversation(finished[3]!.id, 'redirect');
}

function run(argv: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Summary {
  status: string;
  exitCode: number;
  error: string | null;
}

/** The JSON summaries in a sync's stdout (or a log of them), one per line. */
function summaries(text: string): Summary[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Summary);
}

/** Every built-in report written as CSV into `dir`. */
function expectReports(dir: string): void {
  const expected = readdirSync(join(ROOT, 'sql'))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, '.csv'))
    .sort();
  expect(existsSync(dir), `${dir} exists`).toBe(true);
  expect(readdirSync(dir).sort()).toEqual([...expected, 'columns.md'].sort());
  for (const f of expected) expect(readFileSync(join(dir, f), 'utf8').split('\n')[0]!.length).toBeGreaterThan(0);
}

const storeOf = (sim: Simulator) => ({ conversations: sim.dataset.conversations, detail: (id: string) => sim.dataset.detail(id) });

const EXAMPLE_RULES = join(ROOT, 'docs/alerts.example.toml');

/** The rules the alert step evaluated into the database (none: the step did not run). */
async function rulesEvaluated(db: string): Promise<string[]> {
  const rows = await Database.with(db, (d) => d.all(`SELECT DISTINCT rule FROM alert_evaluations ORDER BY rule`), { readOnly: true });
  return rows.map((r) => String(r.rule));
}
const EXAMPLE_RULE_NAMES = [...readFileSync(EXAMPLE_RULES, 'utf8').matchAll(/^name = "([^"]+)"/gm)].map((m) => m[1]!).sort();
/** The alert step ran (it stored evaluations of the example rules), or did not (none at all). */
function expectAlertStep(evaluated: string[], ran: boolean): void {
  if (!ran) return void expect(evaluated, 'no alert step').toEqual([]);
  expect(evaluated.length, 'the alert step evaluated the example rules').toBeGreaterThan(0);
  for (const rule of evaluated) expect(EXAMPLE_RULE_NAMES).toContain(rule);
}

/**
 * Another sync writing `db` (started by hand beside the scheduler): slow details keep it syncing;
 * resolves once it holds the sync lock. `stop()` ends it (SIGTERM) and waits.
 */
async function syncHolding(sim: Simulator, db: string, cwd: string): Promise<{ stop: () => Promise<void> }> {
  const run = startCli(['sync', '--db', db], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey }, cwd);
  const lock = `${db}.sync-lock`;
  const deadline = Date.now() + 30_000;
  while (!existsSync(lock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(existsSync(lock), 'the other sync took the sync lock').toBe(true);
  return {
    async stop() {
      run.child.kill('SIGTERM');
      await run.done;
    },
  };
}

// ---------- what a recipe may say: only real commands and flags, never a key ----------

const helpCache = new Map<string, string>();
function help(...command: string[]): string {
  const key = command.join(' ');
  if (!helpCache.has(key)) {
    const r = spawnSync(process.execPath, [CLI, ...command, '--help'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    helpCache.set(key, r.stdout);
  }
  return helpCache.get(key)!;
}

/** Every `convoduck …` invocation in the text uses a command and flags that its --help lists. */
function expectDocumentedInvocations(text: string): number {
  const commands = [...help().matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!);
  let seen = 0;
  for (const segment of text.split(/&&|\|\||;|\||\n/)) {
    const words = segment.trim().split(/\s+/);
    const start = words.indexOf('convoduck');
    if (start < 0) continue;
    expect(start === 0 || /^-?\/usr\/bin\/env$/.test(words.slice(0, start).join(' ')), segment).toBe(true);
    const command = words[start + 1]!;
    expect(commands, `convoduck ${command}`).toContain(command);
    const flags = new Set(help(command).match(/--[a-z][a-z-]*/g));
    for (const word of words.slice(start + 2)) {
      if (/^\d?>>?$/.test(word)) break;
      if (word.startsWith('--')) expect([...flags], `${command} ${word}`).toContain(word);
    }
    seen++;
  }
  expect(text).not.toMatch(/\bnpx\b/);
  expect(text).not.toMatch(/np_[A-Za-z0-9]/);
  return seen;
}

// ---------- cron ----------

function cronLine(): { schedule: string[]; command: string } {
  const docs = recipe('docs/scheduling.md', 'cron');
  expect(recipe('README.md', 'cron'), 'the README and docs/scheduling.md give the same cron line').toBe(docs);
  const lines = docs.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const m = /^((?:\S+\s+){5})(.*)$/.exec(lines[0]!)!;
  const schedule = m[1]!.trim().split(/\s+/);
  for (const field of schedule) expect(field).toMatch(/^(\*|\d+(-\d+)?(,\d+(-\d+)?)*)(\/\d+)?$/);
  // cron turns an unescaped % into a newline
  expect(m[2]).not.toContain('%');
  return { schedule, command: m[2]! };
}

/** Runs the cron line's command as cron does: /bin/sh -c, in HOME, with cron's bare environment. */
async function runCron(sim: Simulator, m: ReturnType<typeof machine>, work: string) {
  const command = place(cronLine().command, {
    '/srv/convoduck': work,
    [HOST]: sim.baseUrl,
    '/etc/convoduck/key': m.key,
    '/etc/convoduck/alerts.toml': join(ROOT, 'docs/alerts.example.toml'),
    '/usr/local/bin': m.bin,
  });
  const env = ['PATH=/usr/bin:/bin', `HOME=${m.home}`, 'SHELL=/bin/sh', 'LOGNAME=convoduck'];
  return run(['/usr/bin/env', '-i', ...env, '/bin/sh', '-c', command], m.home);
}

describe('the cron line', () => {
  it('uses only documented commands and flags, hourly', () => {
    const { schedule, command } = cronLine();
    expect(schedule).toEqual(['0', '*', '*', '*', '*']);
    expect(expectDocumentedInvocations(command)).toBe(3);
  });

  it('syncs, writes a JSON summary line per run and every report, run after run', async () => {
    const sim = await simulator();
    const m = machine(sim);
    const work = join(m.root, 'srv');
    mkdirSync(work);
    for (const runs of [1, 2]) {
      const r = await runCron(sim, m, work);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const lines = summaries(readFileSync(join(work, 'sync.jsonl'), 'utf8'));
      expect(lines).toHaveLength(runs);
      expect(lines.at(-1)).toMatchObject({ status: 'ok', exitCode: 0, error: null });
    }
    await expectStoreMatches(join(work, 'convoduck.duckdb'), storeOf(sim));
    expectReports(join(work, 'reports'));
    expect(readFileSync(join(work, 'sync.log'), 'utf8')).toMatch(/coverage: \d+ rows/);
    // the alert step evaluated the example rules (a bad rules path would be one line in the log)
    expect(readFileSync(join(work, 'sync.log'), 'utf8')).not.toMatch(/alerts\.toml/);
    const evaluated = await Database.with(join(work, 'convoduck.duckdb'), (db) => db.all(`SELECT DISTINCT rule FROM alert_evaluations`), { readOnly: true });
    expect(evaluated.length).toBeGreaterThan(0);
  }, 300_000);

  it('still writes the reports when sync exits 1', async () => {
    const sim = await simulator();
    breakOne(sim);
    const m = machine(sim);
    const work = join(m.root, 'srv');
    mkdirSync(work);
    const r = await runCron(sim, m, work);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaries(readFileSync(join(work, 'sync.jsonl'), 'utf8'))).toEqual([expect.objectContaining({ status: 'errors', exitCode: 1 })]);
    expectReports(join(work, 'reports'));
  }, 300_000);

  it('started again while the last run still syncs: that sync is skipped (exit 75), no reports, then the first one writes them', async () => {
    // slow details keep the first run syncing for seconds
    const sim = await simulator({ latency: { detailMs: 2_000 } });
    const m = machine(sim);
    const work = join(m.root, 'srv');
    mkdirSync(work);
    const lock = join(work, 'convoduck.duckdb.sync-lock');
    const first = runCron(sim, m, work);
    const deadline = Date.now() + 30_000;
    while (!existsSync(lock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(lock), 'the first run took the sync lock').toBe(true);

    const second = await runCron(sim, m, work);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(existsSync(lock), 'the first run was still syncing when the second ended').toBe(true);
    const skipped = summaries(readFileSync(join(work, 'sync.jsonl'), 'utf8'));
    expect(skipped).toEqual([expect.objectContaining({ status: 'skipped', exitCode: 75 })]);
    expect(skipped[0]!.error).toMatch(/^another convoduck sync \(pid \d+\) is already writing this database: this run is skipped/);
    expect(existsSync(join(work, 'reports')), 'no reports after a skipped sync').toBe(false);
    expect(readFileSync(join(work, 'sync.log'), 'utf8')).not.toMatch(/rows →/);

    const done = await first;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(summaries(readFileSync(join(work, 'sync.jsonl'), 'utf8')).map((s) => [s.status, s.exitCode])).toEqual([
      ['skipped', 75],
      ['ok', 0],
    ]);
    await expectStoreMatches(join(work, 'convoduck.duckdb'), storeOf(sim));
    expectReports(join(work, 'reports'));
  }, 300_000);
});

// ---------- systemd ----------

const serviceText = () => recipe('docs/scheduling.md', 'systemd-service');
const timerText = () => recipe('docs/scheduling.md', 'systemd-timer');

function service(sim: Simulator, m: ReturnType<typeof machine>) {
  const text = place(serviceText(), {
    '/var/lib/convoduck': join(m.root, 'var/lib/convoduck'),
    [HOST]: sim.baseUrl,
    '/etc/convoduck/key': m.key,
    '/etc/convoduck/alerts.toml': EXAMPLE_RULES,
    '/usr/local/bin': m.bin,
  });
  const options = { stateRoot: join(m.root, 'var/lib'), credentialsDir: join(m.root, 'credentials'), home: m.home };
  return { unit: parseUnit(text), options, state: join(m.root, 'var/lib/convoduck') };
}

describe('the systemd service and timer', () => {
  it('are a convoduck.service and a convoduck.timer that systemd-analyze accepts', () => {
    expect(serviceText()).toMatch(/^# \/etc\/systemd\/system\/convoduck\.service\n/);
    expect(timerText()).toMatch(/^# \/etc\/systemd\/system\/convoduck\.timer\n/);
    const timer = parseUnit(timerText());
    expect(values(timer, 'Timer', 'OnCalendar')).toEqual(['hourly']);
    expect(values(timer, 'Timer', 'Persistent')).toEqual(['true']);
    expect(values(timer, 'Install', 'WantedBy')).toEqual(['timers.target']);
    const unit = parseUnit(serviceText());
    expect(values(unit, 'Service', 'Type')).toEqual(['oneshot']);
    // The key comes as a credential, never in the unit; the stop timeout outlasts convoduck's 3 s.
    expect(values(unit, 'Service', 'Environment').join(' ')).not.toMatch(/API_KEY/);
    expect(timeSpanMs(values(unit, 'Service', 'TimeoutStopSec').at(-1)!)).toBeGreaterThan(3_000);
    // the sync starts; the alert and the reports run after it only when it succeeded (exit 0, or 1)
    expect(expectDocumentedInvocations(values(unit, 'Service', 'ExecStart').join('\n'))).toBe(1);
    expect(expectDocumentedInvocations(values(unit, 'Service', 'ExecStartPost').join('\n'))).toBe(2);
    expect(values(unit, 'Service', 'SuccessExitStatus')).toEqual(['1']);

    // Skipped only where the binary is missing: this image has it.
    const which = spawnSync('which', ['systemd-analyze'], { encoding: 'utf8' });
    if (which.status !== 0) return;
    const dir = tempDir();
    writeFileSync(join(dir, 'convoduck.service'), serviceText());
    writeFileSync(join(dir, 'convoduck.timer'), timerText());
    const r = spawnSync('systemd-analyze', ['verify', join(dir, 'convoduck.service'), join(dir, 'convoduck.timer')], { encoding: 'utf8' });
    expect({ status: r.status, out: r.stdout + r.stderr }).toEqual({ status: 0, out: '' });
  });

  it('syncs, then evaluates the alerts and writes every report, with the key from LoadCredential=', async () => {
    const sim = await simulator();
    const m = machine(sim);
    const { unit, options, state } = service(sim, m);
    const { result, steps } = await runService(unit, options).done;
    expect(steps.map((s) => [s.line.argv[2], s.code === 10 ? 0 : s.code]), steps.map((s) => s.stderr).join('\n')).toEqual([
      ['sync', 0],
      ['alert', 0],
      ['report', 0],
    ]);
    expect(result).toBe('success');
    expectAlertStep(await rulesEvaluated(join(state, 'convoduck.duckdb')), true);
    expect(summaries(steps[0]!.stdout)).toEqual([expect.objectContaining({ status: 'ok', exitCode: 0 })]);
    await expectStoreMatches(join(state, 'convoduck.duckdb'), storeOf(sim));
    expectReports(join(state, 'reports'));
  }, 300_000);

  it('still writes the reports when sync exits 1', async () => {
    const sim = await simulator();
    breakOne(sim);
    const m = machine(sim);
    const { unit, options, state } = service(sim, m);
    const { steps, result } = await runService(unit, options).done;
    expect(steps.map((s) => [s.line.argv[2], s.code === 10 ? 0 : s.code])).toEqual([
      ['sync', 1],
      ['alert', 0],
      ['report', 0],
    ]);
    expect(result).toBe('success');
    expect(summaries(steps[0]!.stdout)).toEqual([expect.objectContaining({ status: 'errors', exitCode: 1 })]);
    expectReports(join(state, 'reports'));
  }, 300_000);

  it('a sync skipped because another one writes the database (exit 75): no alert, no reports', async () => {
    const sim = await simulator({ latency: { detailMs: 2_000 } });
    const m = machine(sim);
    const { unit, options, state } = service(sim, m);
    mkdirSync(state, { recursive: true });
    const other = await syncHolding(sim, join(state, 'convoduck.duckdb'), m.home);
    try {
      const { steps, result } = await runService(unit, options).done;
      expect(steps.map((s) => [s.line.argv[2], s.code])).toEqual([['sync', 75]]);
      expect(result).toBe('exit-code');
      expect(summaries(steps[0]!.stdout)).toEqual([expect.objectContaining({ status: 'skipped', exitCode: 75 })]);
    } finally {
      await other.stop();
    }
    expect(existsSync(join(state, 'reports')), 'no reports after a skipped sync').toBe(false);
    expectAlertStep(await rulesEvaluated(join(state, 'convoduck.duckdb')), false);
  }, 300_000);

  it('systemctl stop: the sync exits 130 before TimeoutStopSec= would SIGKILL it, and no report starts', async () => {
    const sim = await simulator({ rateLimit: 60 });
    const m = machine(sim);
    const { unit, options } = service(sim, m);
    const running = runService(unit, options);
    const deadline = Date.now() + 30_000;
    while (sim.requestLog.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(sim.requestLog.length).toBeGreaterThanOrEqual(5);
    running.stop();
    const { steps } = await running.done;
    expect(steps.map((s) => [s.line.argv[2], s.code, s.signal])).toEqual([['sync', 130, null]]);
    expect(summaries(steps[0]!.stdout)).toEqual([expect.objectContaining({ status: 'interrupted', exitCode: 130 })]);
  }, 300_000);
});

// ---------- GitHub Actions and GitLab CI ----------

/** A YAML document as data, read by the \`yaml\` package (YAML 1.2: \`on\` is a key, not a boolean). */
type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };
const parseYaml = (text: string): Yaml => parse(text) as Yaml;

/** A mapping's value at a path of keys (and numeric indexes), or undefined. */
function at(doc: Yaml | undefined, ...path: (string | number)[]): Yaml | undefined {
  let node = doc;
  for (const key of path) {
    if (node === undefined || node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? (typeof key === 'number' ? node[key] : undefined) : node[key];
  }
  return node;
}

const asMap = (y: Yaml | undefined): Record<string, Yaml> => (y && typeof y === 'object' && !Array.isArray(y) ? y : {});
const asList = (y: Yaml | undefined): Yaml[] => (Array.isArray(y) ? y : []);
const INSTALL = 'npm ci && npm install -g .';
/** The steps after the sync that a skipped sync (exit 75) skips, as the cron line does. */
const SKIPPED_SYNC_CONDITION = "${{ !cancelled() && steps.sync.outputs.exit_code != '75' }}";

/** Runs one shell step with the CI's bare environment plus the given variables. */
function ciShell(shell: string[], script: string, m: ReturnType<typeof machine>, vars: Record<string, string>, cwd: string) {
  const env = { PATH: `${m.bin}:/usr/bin:/bin`, HOME: m.home, ...vars };
  return run(['/usr/bin/env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...shell, script], cwd);
}

describe('the GitHub Actions workflow', () => {
  const workflow = () => parseYaml(recipe('docs/scheduling.md', 'github-actions'));
  const steps = () => asList(at(workflow(), 'jobs', 'sync', 'steps')).map(asMap);

  it('runs hourly, takes the key from secrets, keeps the database and uploads the reports', () => {
    const text = recipe('docs/scheduling.md', 'github-actions');
    expect(String(at(workflow(), 'on', 'schedule', 0, 'cron'))).toMatch(/^\d+ \* \* \* \*$/);
    const all = steps();
    const index = (p: (s: Record<string, Yaml>) => boolean) => all.findIndex(p);
    const sync = index((s) => /convoduck sync/.test(String(s.run)));
    const restore = index((s) => String(s.uses).startsWith('actions/cache/restore@'));
    const save = index((s) => String(s.uses).startsWith('actions/cache/save@'));
    const upload = index((s) => String(s.uses).startsWith('actions/upload-artifact@'));
    expect([restore < sync, sync < save, sync < upload, all[index((s) => s.run === INSTALL)] !== undefined]).toEqual([true, true, true, true]);
    // The database the cache keeps is the one sync and report use by default (./convoduck.duckdb).
    expect([at(all[restore]!, 'with', 'path'), at(all[save]!, 'with', 'path')]).toEqual(['convoduck.duckdb', 'convoduck.duckdb']);
    expect(all[save]!.if).toBe('${{ always() }}');
    expect(String(at(all[upload]!, 'with', 'path')).split('\n')).toEqual(expect.arrayContaining(['sync.json', 'reports/']));
    expect(at(all[sync]!, 'env', 'CONVODUCK_API_KEY')).toBe('${{ secrets.CONVODUCK_API_KEY }}');
    expect(text.match(/CONVODUCK_API_KEY/g)).toHaveLength(2);
    expect(expectDocumentedInvocations(all.map((s) => String(s.run ?? '')).join('\n'))).toBe(3);
    // the alert step after the sync, before the reports, skipped with them after a skipped sync (75)
    const alerts = index((s) => /convoduck alert/.test(String(s.run)));
    const reports = index((s) => /convoduck report/.test(String(s.run)));
    expect([sync < alerts, alerts < reports]).toEqual([true, true]);
    expect(all[sync]!.id).toBe('sync');
    for (const i of [alerts, reports]) expect(all[i]!.if).toBe(SKIPPED_SYNC_CONDITION);
    expect(at(all[alerts]!, 'env', 'CONVODUCK_ALERT_WEBHOOK_URL')).toBe('${{ secrets.CONVODUCK_ALERT_WEBHOOK_URL }}');
  });

  /**
   * The run: steps in order as the runner does (bash -eo pipefail; if: decides after a failure),
   * each step's `$GITHUB_OUTPUT` read into `steps.<id>.outputs`. The webhook secret is not set.
   */
  async function runWorkflow(sim: Simulator, m: ReturnType<typeof machine>, work: string) {
    const expr = (v: string) => {
      const out = v
        .replace(/\$\{\{\s*secrets\.CONVODUCK_API_KEY\s*\}\}/g, sim.apiKey)
        .replace(/\$\{\{\s*vars\.CONVODUCK_BASE_URL\s*\}\}/g, sim.baseUrl)
        .replace(/\$\{\{\s*secrets\.CONVODUCK_ALERT_WEBHOOK_URL\s*\}\}/g, '');
      expect(out).not.toContain('${{');
      return out;
    };
    const jobEnv = Object.fromEntries(Object.entries(asMap(at(workflow(), 'jobs', 'sync', 'env'))).map(([k, v]) => [k, expr(String(v))]));
    const ran: { name: string; code: number | null; stdout: string }[] = [];
    const outputs: Record<string, Record<string, string>> = {};
    let failed = false;
    for (const [i, step] of steps().entries()) {
      if (step.uses !== undefined || step.run === INSTALL) continue;
      const condition = step.if === undefined ? 'success' : String(step.if);
      expect(['success', '${{ !cancelled() }}', '${{ always() }}', SKIPPED_SYNC_CONDITION]).toContain(condition);
      if (condition === 'success' && failed) continue;
      if (condition === SKIPPED_SYNC_CONDITION && outputs.sync?.exit_code === '75') continue;
      const output = join(m.root, `github-output-${i}`);
      writeFileSync(output, '');
      const env = { ...jobEnv, ...Object.fromEntries(Object.entries(asMap(step.env)).map(([k, v]) => [k, expr(String(v))])), GITHUB_OUTPUT: output };
      const r = await ciShell(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'], String(step.run), m, env, work);
      if (step.id !== undefined) outputs[String(step.id)] = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]));
      ran.push({ name: String(step.name), code: r.code, stdout: r.stdout });
      if (r.code !== 0) failed = true;
    }
    return ran;
  }

  it.each([false, true])('runs sync and reports (a sync that exits 1: %s)', async (broken) => {
    const sim = await simulator();
    if (broken) breakOne(sim);
    const m = machine(sim);
    const work = join(m.root, 'workspace');
    mkdirSync(work);
    copyFileSync(EXAMPLE_RULES, join(work, 'alerts.toml'));
    const ran = await runWorkflow(sim, m, work);
    expect(ran.map((s) => [s.name, s.code])).toEqual([
      ['sync', broken ? 1 : 0],
      ['alerts', 0],
      ['reports', 0],
    ]);
    expectAlertStep(await rulesEvaluated(join(work, 'convoduck.duckdb')), true);
    expect(summaries(readFileSync(join(work, 'sync.json'), 'utf8'))).toEqual([expect.objectContaining({ status: broken ? 'errors' : 'ok' })]);
    if (!broken) await expectStoreMatches(join(work, 'convoduck.duckdb'), storeOf(sim));
    expectReports(join(work, 'reports'));
  }, 300_000);

  it('a sync skipped because another one writes the database (exit 75): no alert, no reports', async () => {
    const sim = await simulator({ latency: { detailMs: 2_000 } });
    const m = machine(sim);
    const work = join(m.root, 'workspace');
    mkdirSync(work);
    copyFileSync(EXAMPLE_RULES, join(work, 'alerts.toml'));
    const other = await syncHolding(sim, join(work, 'convoduck.duckdb'), work);
    try {
      const ran = await runWorkflow(sim, m, work);
      expect(ran.map((s) => [s.name, s.code])).toEqual([['sync', 75]]);
      expect(summaries(readFileSync(join(work, 'sync.json'), 'utf8'))).toEqual([expect.objectContaining({ status: 'skipped', exitCode: 75 })]);
    } finally {
      await other.stop();
    }
    expect(existsSync(join(work, 'reports'))).toBe(false);
    expectAlertStep(await rulesEvaluated(join(work, 'convoduck.duckdb')), false);
  }, 300_000);
});

describe('the GitLab CI job', () => {
  const job = () => asMap(at(parseYaml(recipe('docs/scheduling.md', 'gitlab-ci')), 'convoduck'));

  it('runs on a schedule, keeps the database, uploads the reports, and has no key in it', () => {
    const j = job();
    expect(String(at(j, 'rules', 0, 'if'))).toBe('$CI_PIPELINE_SOURCE == "schedule"');
    expect(Object.keys(asMap(j.variables))).toEqual(['CONVODUCK_BASE_URL']);
    expect([at(j, 'cache', 'paths'), at(j, 'cache', 'when')]).toEqual([['convoduck.duckdb'], 'always']);
    expect(at(j, 'artifacts', 'when')).toBe('always');
    expect(at(j, 'artifacts', 'paths')).toEqual(expect.arrayContaining(['sync.json', 'reports/']));
    expect(asList(j.script)[0]).toBe(INSTALL);
    expect(expectDocumentedInvocations(asList(j.script).join('\n'))).toBe(3);
  });

  it.each([false, true])('runs sync and reports and fails as the sync did (a sync that exits 1: %s)', async (broken) => {
    const sim = await simulator();
    if (broken) breakOne(sim);
    const m = machine(sim);
    const work = join(m.root, 'project');
    mkdirSync(work);
    const j = job();
    // The script's lines run in one shell with errexit; the key comes from the project's CI/CD variables.
    const script = asList(j.script).slice(1).join('\n');
    const vars: Record<string, string> = { ...Object.fromEntries(Object.entries(asMap(j.variables)).map(([k, v]) => [k, String(v) === HOST ? sim.baseUrl : String(v)])), CONVODUCK_API_KEY: sim.apiKey, CI_PIPELINE_SOURCE: 'schedule' };
    expect(vars.CONVODUCK_BASE_URL).toBe(sim.baseUrl);
    copyFileSync(EXAMPLE_RULES, join(work, 'alerts.toml'));
    const r = await ciShell(['bash', '-eo', 'pipefail', '-c'], script, m, vars, work);
    expect(r.code, r.stdout).toBe(broken ? 1 : 0);
    expect(summaries(readFileSync(join(work, 'sync.json'), 'utf8'))).toEqual([expect.objectContaining({ status: broken ? 'errors' : 'ok' })]);
    if (!broken) await expectStoreMatches(join(work, 'convoduck.duckdb'), storeOf(sim));
    expectReports(join(work, 'reports'));
    expectAlertStep(await rulesEvaluated(join(work, 'convoduck.duckdb')), true);
  }, 300_000);

  it('a sync skipped because another one writes the database (exit 75): the job ends there, succeeded, with no alert and no reports', async () => {
    const sim = await simulator({ latency: { detailMs: 2_000 } });
    const m = machine(sim);
    const work = join(m.root, 'project');
    mkdirSync(work);
    copyFileSync(EXAMPLE_RULES, join(work, 'alerts.toml'));
    const script = asList(job().script).slice(1).join('\n');
    const other = await syncHolding(sim, join(work, 'convoduck.duckdb'), work);
    try {
      const r = await ciShell(['bash', '-eo', 'pipefail', '-c'], script, m, { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CI_PIPELINE_SOURCE: 'schedule' }, work);
      expect(r.code, r.stdout).toBe(0);
      expect(summaries(readFileSync(join(work, 'sync.json'), 'utf8'))).toEqual([expect.objectContaining({ status: 'skipped', exitCode: 75 })]);
    } finally {
      await other.stop();
    }
    expect(existsSync(join(work, 'reports'))).toBe(false);
    expectAlertStep(await rulesEvaluated(join(work, 'convoduck.duckdb')), false);
  }, 300_000);
});
