// `npm run bench`: how close convoduck comes to what the API allows, and what it costs.
//
//   node dist/bench/run.js [--quick] [--only budget,crawl,normalise,reports] [--cases a,e,g] [--out DIR] [--keep]
//
// Prints tables on stdout (progress on stderr) and writes the same figures as JSON to
// reports/bench/bench-<time>.json and reports/bench/latest.json. A benchmark prints figures; it
// never fails on a slow result (exit 1 only when something broke).
// Over 400 lines on purpose: one printer per section, kept together so the output reads as one.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { defaultBurst } from '../simulator/index.js';
import { budgetCases, runBudget, startBudgetSimulators, type BudgetCase, type BudgetResult, type BudgetSimulators } from './budget.js';
import { fixed } from './measure.js';
import { benchNormalise, type NormaliseResult } from './normalise.js';
import { benchReports, type ReportsResult } from './reports.js';
import { benchScale, type ScaleResult } from './scale.js';

const SECTIONS = ['budget', 'crawl', 'normalise', 'reports'] as const;
type Section = (typeof SECTIONS)[number];

interface Settings {
  quick: boolean;
  /** time scale of the budget cases (windows, latencies, pauses divided by it) */
  scale: number;
  naiveMs: number;
  crawlSizes: number[];
  incrementalNew: number;
  normaliseDetails: number;
  reportConversations: number;
}

const FULL: Settings = {
  quick: false,
  scale: 1,
  naiveMs: 120_000,
  crawlSizes: [10_000, 100_000],
  incrementalNew: 500,
  normaliseDetails: 50_000,
  reportConversations: 1_000_000,
};

const QUICK: Settings = {
  quick: true,
  scale: 10,
  naiveMs: 12_000,
  crawlSizes: [1_000, 5_000],
  incrementalNew: 100,
  normaliseDetails: 5_000,
  reportConversations: 100_000,
};

interface Goal {
  what: string;
  goal: string;
  measured: string;
  met: boolean;
  /** measured on time-scaled windows (--quick): indicative only */
  scaled?: boolean;
}

interface Args {
  settings: Settings;
  only: Set<Section>;
  /** the budget cases to run, by key */
  cases: BudgetCase[];
  out: string;
  keep: boolean;
}

function parseArgs(argv: string[]): Args {
  let quick = false;
  let only = new Set<Section>(SECTIONS);
  let cases = budgetCases();
  let out = 'reports/bench';
  let keep = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') quick = true;
    else if (a === '--keep') keep = true;
    else if (a === '--out') out = argv[++i] ?? out;
    else if (a === '--only') {
      const names = (argv[++i] ?? '').split(',').filter(Boolean);
      const bad = names.filter((n) => !(SECTIONS as readonly string[]).includes(n));
      if (bad.length > 0 || names.length === 0) usage(`--only takes a comma list of ${SECTIONS.join(', ')}`);
      only = new Set(names as Section[]);
    } else if (a === '--cases') {
      const keys = (argv[++i] ?? '').split(',').filter(Boolean);
      const all = budgetCases();
      const bad = keys.filter((k) => !all.some((c) => c.key === k));
      if (bad.length > 0 || keys.length === 0) usage(`--cases takes a comma list of ${all.map((c) => c.key).join(', ')}`);
      cases = all.filter((c) => keys.includes(c.key));
    } else if (a === '--help' || a === '-h') usage();
    else usage(`unknown argument ${a}`);
  }
  return { settings: quick ? QUICK : FULL, only, cases, out, keep };
}

function usage(error?: string): never {
  const text =
    'usage: npm run bench [-- --quick] [--only budget,crawl,normalise,reports] [--cases a,e,g] [--out DIR] [--keep]\n' +
    '  --quick   smaller N and time-scaled rate windows (2 to 3 minutes)\n' +
    '  --only    run only these sections\n' +
    `  --cases   run only these budget cases (${budgetCases().map((c) => `${c.key} ${c.algorithm}`).join(', ')})\n` +
    '  --out     where the JSON goes (default reports/bench)\n' +
    '  --keep    keep the temporary work folder\n';
  process.stderr.write(error ? `bench: ${error}\n${text}` : text);
  process.exit(error ? 2 : 0);
}

const log = (line: string): void => {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

function table(headers: string[], rows: string[][], alignLeft = 1): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < alignLeft ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const secs = (s: number): string => (s >= 100 ? s.toFixed(0) : s >= 10 ? s.toFixed(1) : s.toFixed(2));
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

async function machine(): Promise<Record<string, unknown>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const duckdb = String((await connection.runAndReadAll('SELECT version() AS v')).getRowObjectsJS()[0]?.v ?? 'unknown');
  connection.closeSync();
  instance.closeSync();
  const cpu = cpus();
  let revision = 'unknown';
  try {
    const git = (...args: string[]): string =>
      execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'sql', 'package.json').split('\n').filter(Boolean).length;
    revision = `${git('rev-parse', '--short', 'HEAD')}${dirty > 0 ? ` + ${dirty} changed files` : ''}`;
  } catch {
    // not a git checkout
  }
  return {
    revision,
    cores: cpu.length,
    cpu: cpu[0]?.model ?? 'unknown',
    memoryGb: Number((totalmem() / 2 ** 30).toFixed(1)),
    freeMemoryGb: Number((freemem() / 2 ** 30).toFixed(1)),
    node: process.version,
    duckdb,
    os: `${process.platform} ${release()}`,
    loadAverageAtStart: loadavg().map((x) => Number(x.toFixed(2))),
  };
}

// ------------------------------------------------------------------------------------------------

/** What the server allows, in words: a bucket holds its burst on top of the refill. */
function algorithmLabel(c: BudgetCase): string {
  return c.algorithm === 'bucket' ? `bucket, burst ${c.burst ?? defaultBurst(c.limit)}` : c.algorithm;
}

function printBudget(results: BudgetResult[], s: Settings, goals: Goal[]): void {
  const unit = s.scale === 1 ? 'min' : `${60 / s.scale} s`;
  const rounds = [...new Set(results.map((r) => r.case.round))].sort((a, b) => a - b);
  const together = rounds.map((n) => results.filter((r) => r.case.round === n).map((r) => r.case.key).join(', ')).join(' at once, then ');
  console.log(`\n1+2. Budget utilisation and the naive client (cases ${together} at once; separate simulators)`);
  if (s.scale !== 1) {
    console.log(
      `     TIME-SCALED ×${s.scale} (--quick): the rate window is ${60 / s.scale} s instead of 60 s on both the simulator and sync({windowMs});\n` +
        `     latencies, the second client's rate and the naive client's pause are scaled alike. "/${unit}" reads as "per minute";\n` +
        `     Retry-After stays in whole seconds (at least 1, a sixth of a scaled window).`,
    );
  }
  const rows = results.map((r) => {
    const c = r.case;
    const u = r.convoduck.use;
    return [
      `(${c.key}) ${c.limit}/${unit}, ${c.latencyMs} ms${c.otherPerWindow ? `, other ${c.otherPerWindow}/${unit}` : ''}`,
      algorithmLabel(c),
      int(c.conversations),
      String(u.left),
      u.own.join(', '),
      fixed(u.utilisation, 3),
      String(r.convoduck.maxOwnRolling),
      String(r.convoduck.maxKeyRolling),
      String(r.convoduck.throttled),
      String(r.convoduck.otherThrottled),
      `${fixed(r.convoduck.requests / r.convoduck.minimum, 3)}`,
      secs(r.convoduck.seconds),
      `${secs(r.naive.secondsForJob)}${r.naive.extrapolated ? '*' : ''}`,
      String(r.naive.throttled),
      fixed(r.timeRatio, 3),
    ];
  });
  console.log(
    table(
      ['case', 'algorithm', 'N', 'left', `ours per whole ${unit === 'min' ? 'minute' : 'window'}`, 'utilis.', 'max roll. ours', 'max roll. key', '429', 'other 429', 'req ÷ min', 'convoduck s', 'naive s', 'naive 429', 'time ratio'],
      rows,
      2,
    ),
  );
  console.log(
    `     algorithm: how the simulator counts the limit: a rolling window, a fixed window opened by the key's first request after the last\n` +
      `     one ended, or a token bucket refilled at the limit per window that holds at most its burst (and starts full).\n` +
      `     left: the budget left to convoduck per window (the limit minus the second client's rate); ours per whole window: its accepted\n` +
      `     requests in [t0 + kW, t0 + (k+1)W) from its first request t0 (the tail after the last whole window is left out); utilis.: their\n` +
      `     mean ÷ left (above 1: it took the other client's share, or a bucket's burst on top of the refill); max roll.: most requests in any\n` +
      `     rolling window, ours (429s included) / the key's accepted ones (ours and the other client's: a fixed window lets up to twice the\n` +
      `     limit into a rolling one across a reset, a bucket the limit plus its burst); 429: convoduck's requests rejected; other 429: the\n` +
      `     second client's; req ÷ min: requests ÷ the minimum for N.\n` +
      `     time ratio: convoduck's wall time ÷ the naive client's for the same N (per_page 50, one request at a time, 1 s pause${s.scale !== 1 ? ' scaled' : ''},\n` +
      `     a 429 retried after its Retry-After; naive 429: how many it got).\n` +
      `     * the naive client ran ${s.naiveMs / 1000} s and its time for the whole job is extrapolated at its measured pace (seconds per accepted request).`,
  );
  for (const r of results) {
    const c = r.case;
    const name = `budget (${c.key}) ${c.algorithm}`;
    const u = r.convoduck.use;
    goals.push({ what: `${name} utilisation`, goal: '≥ 0.97 of what is left', measured: fixed(u.utilisation, 3), met: u.utilisation >= 0.97, scaled: s.scale !== 1 });
    if (c.algorithm === 'rolling') {
      goals.push({
        what: `${name} never over the budget`,
        goal: `≤ ${u.left} ours in any window, no 429 for the other client`,
        measured: `${r.convoduck.maxOwnRolling} / ${r.convoduck.otherThrottled}`,
        met: r.convoduck.maxOwnRolling <= u.left && r.convoduck.otherThrottled === 0,
      });
    } else {
      // A fixed window or a bucket has no rolling count to stay under: the server's answers judge.
      goals.push({
        what: `${name} never over the budget`,
        goal: 'no 429 for the other client',
        measured: String(r.convoduck.otherThrottled),
        met: r.convoduck.otherThrottled === 0,
      });
    }
    goals.push({ what: `${name} 429 responses`, goal: '≤ 1', measured: String(r.convoduck.throttled), met: r.convoduck.throttled <= 1 });
  }
}

function printCrawl(r: ScaleResult, goals: Goal[]): void {
  console.log(`\n3+5. Request overhead and memory (simulator and sync in separate processes; limit raised to 10^9/min)`);
  const rows = r.crawls.map((c) => [
    `full sync of ${int(c.conversations)}`,
    int(c.requests),
    int(c.minimum),
    fixed(c.overhead, 4),
    `${c.listRequests}/${c.listMinimum}`,
    fixed(c.maxRssMb, 0),
    secs(c.seconds),
    fixed(c.conversationsPerSec, 0),
    secs(c.cpuSec),
  ]);
  const inc = r.incremental;
  if (inc) {
    rows.push([
      `incremental: +${inc.added} new, ${inc.finished} finished`,
      int(inc.requests),
      int(inc.minimum),
      `min + ${inc.requests - inc.minimum}`,
      `${inc.listRequests}/${Math.ceil((inc.added + inc.finished) / 200)}`,
      '',
      secs(inc.seconds),
      '',
      '',
    ]);
  }
  console.log(table(['run', 'requests', 'minimum', 'ratio', 'list pages/min', 'peak RSS MB', 'wall s', 'conv/s', 'CPU s'], rows));
  console.log(
    '     minimum = 1 (spaces) + agent and tool pages + ceil(N/200) list pages + N details; incremental: the new and the\n' +
      '     newly finished conversations only. Peak RSS: process.resourceUsage().maxRSS of the sync process.',
  );
  for (const c of r.crawls) {
    goals.push({ what: `request overhead, full sync of ${int(c.conversations)}`, goal: '≤ 1.01 × minimum', measured: fixed(c.overhead, 4), met: c.overhead <= 1.01 });
  }
  if (inc) {
    goals.push({ what: 'request overhead, incremental sync', goal: '≤ minimum + 2', measured: `minimum + ${inc.requests - inc.minimum}`, met: inc.requests <= inc.minimum + 2 });
  }
  for (const c of r.crawls) {
    goals.push({ what: `peak RSS, sync of ${int(c.conversations)}`, goal: '< 300 MB', measured: `${fixed(c.maxRssMb, 0)} MB`, met: c.maxRssMb < 300 });
  }
  if (r.crawls.length >= 2) {
    const a = r.crawls[0]!;
    const b = r.crawls[r.crawls.length - 1]!;
    const growth = b.maxRssMb / a.maxRssMb;
    console.log(`     peak RSS ×${fixed(growth, 2)} from ${int(a.conversations)} to ${int(b.conversations)} conversations`);
    goals.push({ what: 'peak RSS flat as N grows', goal: `≤ 1.2× from ${int(a.conversations)} to ${int(b.conversations)}`, measured: `×${fixed(growth, 2)}`, met: growth <= 1.2 });
  }
}

function printNormalise(r: NormaliseResult): void {
  console.log(`\n4. Normalisation throughput (no HTTP): ${int(r.details)} generated details, ${int(r.transcriptTurns)} transcript turns, ${int(r.toolCalls)} tool calls, ${int(r.nodeVisits)} node visits (${fixed(r.ndjsonMb, 0)} MB NDJSON)`);
  console.log(
    table(
      ['loader', 'seconds', 'details/s', 'turns/s', 'note'],
      [
        ['convoduck store', secs(r.convoduck.seconds), int(r.convoduck.detailsPerSec), int(r.convoduck.turnsPerSec), `saveListPage ×200 + saveDetails ×100, one open database (${fixed(r.convoduck.dbMb, 0)} MB)`],
        ['DuckDB read_json + unnest', secs(r.floor.seconds), int(r.floor.detailsPerSec), int(r.floor.turnsPerSec), 'the floor: no raw bodies, no checks'],
        ['convoduck rebuild', secs(r.rebuild.seconds), int(r.rebuild.detailsPerSec), '', 're-derives every table from the raw bodies'],
      ],
    ),
  );
  console.log(`     convoduck ÷ floor: ${fixed(r.ratio, 1)}× the time`);
}

function printReports(r: ReportsResult): void {
  console.log(
    `\n6. Reports at scale: ${int(r.counts.conversations)} conversations, ${int(r.counts.transcriptTurns)} turns, ${int(r.counts.nodeVisits)} node visits, ` +
      `${int(r.counts.toolCalls)} tool calls, ${int(r.counts.rawDetails)} raw detail bodies (generated in SQL in ${secs(r.generateSec)} s, ${fixed(r.dbMb / 1000, 1)} GB)`,
  );
  const rows = [['base relations (once per run)', secs(r.baseSec), ''], ...r.reports.map((x) => [x.name, secs(x.seconds), int(x.rows)])];
  rows.push(['all reports, one `report` run', secs(r.totalSec), '']);
  console.log(table(['report', 'seconds', 'rows'], rows));
}

// ------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { settings, only, cases, out, keep } = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const t0 = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'convoduck-bench-'));
  const argv = process.argv.slice(2);
  const command = `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`;
  const mach = await machine();
  log(`work folder ${work}`);
  console.log(`convoduck benchmark (${settings.quick ? '--quick' : 'full'}), ${new Date(started).toISOString()}`);
  console.log(
    `revision ${String(mach.revision)}; machine: ${String(mach.cores)} cores (${String(mach.cpu)}), ${String(mach.memoryGb)} GB RAM, Node ${String(mach.node)}, DuckDB ${String(mach.duckdb)}, ${String(mach.os)}, ` +
      `load average at start ${(mach.loadAverageAtStart as number[]).join(' ')}`,
  );

  const goals: Goal[] = [];
  const sections: Record<string, unknown> = {};
  const timings: Record<string, number> = {};
  const timed = async <T>(name: Section, run: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await run();
    } finally {
      timings[name] = (performance.now() - t) / 1000;
      log(`${name}: ${secs(timings[name])} s`);
    }
  };
  // The budget cases' simulators start first: the second client of the shared cases must have been
  // spending for a whole window before convoduck starts (normalisation runs meanwhile).
  let budgetSims: BudgetSimulators | null = null;
  try {
    if (only.has('budget')) budgetSims = await startBudgetSimulators(cases, settings.scale);
    let normalised: NormaliseResult | null = null;
    if (only.has('normalise')) {
      normalised = await timed('normalise', () => benchNormalise(join(work, 'normalise'), settings.normaliseDetails, log));
      sections.normalise = normalised;
    }
    if (budgetSims) {
      const sims = budgetSims;
      budgetSims = null;
      const r = await timed('budget', () => runBudget(sims, { scale: settings.scale, naiveMs: settings.naiveMs, workDir: work, log }));
      sections.budget = { timeScale: settings.scale, naiveSeconds: settings.naiveMs / 1000, cases: r };
      printBudget(r, settings, goals);
    }
    if (only.has('crawl')) {
      const r = await timed('crawl', () => benchScale(settings.crawlSizes, settings.incrementalNew, work, log));
      sections.crawl = r;
      printCrawl(r, goals);
    }
    if (normalised) printNormalise(normalised);
    if (only.has('reports')) {
      const r = await timed('reports', () => benchReports(settings.reportConversations, work, log));
      sections.reports = r;
      printReports(r);
    }
  } finally {
    await budgetSims?.close();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }

  const totalSec = (performance.now() - t0) / 1000;
  if (goals.length > 0) {
    console.log('\nGoals');
    console.log(
      table(
        ['what', 'goal', 'measured', ''],
        goals.map((g) => [g.what, g.goal, g.measured, g.met ? 'met' : g.scaled ? 'not met (time-scaled: indicative only)' : 'NOT MET']),
        1,
      ),
    );
  }
  const loadEnd = loadavg().map((x) => Number(x.toFixed(2)));
  console.log(`\ntotal ${secs(totalSec)} s (${Object.entries(timings).map(([k, v]) => `${k} ${secs(v)} s`).join(', ')}); load average at end ${loadEnd.join(' ')}`);

  const dir = resolve(out);
  mkdirSync(dir, { recursive: true });
  const stamp = new Date(started).toISOString().replace(/[:.]/g, '-');
  const json = JSON.stringify(
    { command, mode: settings.quick ? 'quick' : 'full', startedAt: new Date(started).toISOString(), machine: { ...mach, loadAverageAtEnd: loadEnd }, settings, sections, goals, timings, totalSec },
    null,
    2,
  );
  const allCases = cases.length === budgetCases().length;
  const partial = (only.size === SECTIONS.length ? '' : `-${[...only].join('-')}`) + (allCases ? '' : `-cases-${cases.map((c) => c.key).join('')}`);
  const file = join(dir, `bench-${settings.quick ? 'quick' : 'full'}${partial}-${stamp}.json`);
  writeFileSync(file, `${json}\n`);
  // A partial run (--only, --cases) does not replace the latest complete one.
  if (only.size === SECTIONS.length && allCases) writeFileSync(join(dir, `latest-${settings.quick ? 'quick' : 'full'}.json`), `${json}\n`);
  console.log(`figures as JSON: ${relative(process.cwd(), file)}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
