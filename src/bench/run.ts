// `npm run bench`: how close convoduck comes to what the API allows, and what it costs.
//
//   node dist/bench/run.js [--quick] [--only budget,crawl,normalise,reports,spaces,shards,stored,realdata,redact,search,recordings,lake,alerts] [--cases a,e,g] [--out DIR] [--keep] [--write-docs]
//
// Prints tables on stdout (progress on stderr) and writes the same figures as JSON to
// reports/bench/bench-<time>.json and reports/bench/latest.json; --write-docs also rewrites the
// tables of docs/performance.md for the sections that ran (docs.ts). A benchmark prints figures; it
// never fails on a slow result (exit 1 only when something broke).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeBenchDocs, type BenchFigures } from './docs.js';
import { budgetCases, runBudget, startBudgetSimulators, type BudgetCase, type BudgetSimulators } from './budget.js';
import { benchNormalise, type NormaliseResult } from './normalise.js';
import { printBudget, printCrawl, printNormalise, printRealData, printReports, printSpaces, printStored, secs, table, type Goal } from './print.js';
import { benchRealData } from './real-data.js';
import { benchRedact, printRedact } from './redact.js';
import { benchLake, printLake } from './lake.js';
import { benchAlerts, printAlerts } from './alerts.js';
import { benchReports } from './reports.js';
import { benchScale } from './scale.js';
import { benchSpaces, type SpacesSettings } from './many-keys.js';
import { benchShards, type ShardsSettings } from './shards.js';
import { printShards } from './shards-print.js';
import { benchSearch, printSearch, type SearchBenchSettings } from './search.js';
import { benchStored } from './stored.js';
import { benchRecordings, printRecordings, type RecordingsBenchSettings } from './recordings.js';

const SECTIONS = ['budget', 'crawl', 'normalise', 'reports', 'spaces', 'shards', 'stored', 'realdata', 'redact', 'search', 'recordings', 'lake', 'alerts'] as const;
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
  /** conversations of the lake the reports run over beside one file */
  lakeConversations: number;
  spaces: SpacesSettings;
  /** the Indexed Job of docs/kubernetes.md on this machine */
  shards: ShardsSettings;
  /** conversations already stored before the sync of the stored section */
  storedSizes: number[];
  /** conversations that sync adds */
  storedAdded: number;
  realData: { conversations: number; longShare: number; longTurns: number; seeds: number[] };
  /** simulated conversations whose transcript text the redaction throughput runs over */
  redactConversations: number;
  search: SearchBenchSettings;
  recordings: RecordingsBenchSettings;
  /** conversations of the databases the example alert rules run over (a live run and a 30-day backtest each) */
  alertSizes: number[];
}

const FULL: Settings = {
  quick: false,
  scale: 1,
  naiveMs: 120_000,
  crawlSizes: [10_000, 100_000],
  incrementalNew: 500,
  normaliseDetails: 50_000,
  reportConversations: 1_000_000,
  lakeConversations: 1_000_000,
  // 200 conversations a key at 60/min: over 3 whole windows each
  spaces: { count: 100, conversations: 200, rateLimit: 60, windowMs: 60_000, latencyMs: 0 },
  shards: { shards: 9, spacesPerShard: 12, conversations: 200, rateLimit: 60, windowMs: 60_000 },
  storedSizes: [10_000, 100_000, 1_000_000],
  storedAdded: 2_000,
  realData: { conversations: 10_000, longShare: 0.01, longTurns: 10_000, seeds: Array.from({ length: 20 }, (_, i) => 201 + i) },
  redactConversations: 5_000,
  search: { stored: 100_000, added: 2_000, repeats: 7, syncPairs: 4 },
  recordings: { conversations: 2_000, rateLimit: 600, windowMs: 60_000 },
  alertSizes: [100_000, 1_000_000],
};

const QUICK: Settings = {
  quick: true,
  scale: 10,
  naiveMs: 12_000,
  crawlSizes: [1_000, 5_000],
  incrementalNew: 100,
  normaliseDetails: 5_000,
  reportConversations: 100_000,
  lakeConversations: 100_000,
  spaces: { count: 20, conversations: 100, rateLimit: 30, windowMs: 10_000, latencyMs: 0 },
  shards: { shards: 9, spacesPerShard: 4, conversations: 100, rateLimit: 30, windowMs: 10_000 },
  storedSizes: [10_000, 50_000],
  storedAdded: 1_000,
  realData: { conversations: 2_000, longShare: 0.01, longTurns: 10_000, seeds: [201, 202, 203, 204] },
  redactConversations: 1_000,
  search: { stored: 20_000, added: 500, repeats: 5, syncPairs: 1 },
  recordings: { conversations: 500, rateLimit: 100, windowMs: 10_000 },
  alertSizes: [10_000, 100_000],
};

interface Args {
  settings: Settings;
  only: Set<Section>;
  /** the budget cases to run, by key */
  cases: BudgetCase[];
  out: string;
  keep: boolean;
  /** the doc whose tables to rewrite from this run's figures, or null */
  writeDocs: string | null;
}

function parseArgs(argv: string[]): Args {
  let quick = false;
  let only = new Set<Section>(SECTIONS);
  let cases = budgetCases();
  let out = 'reports/bench';
  let keep = false;
  let writeDocs: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') quick = true;
    else if (a === '--keep') keep = true;
    else if (a === '--write-docs') writeDocs = 'docs/performance.md';
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
  // The doc states full-run figures: a time-scaled run does not replace them.
  if (writeDocs !== null && quick) usage('--write-docs takes the figures of a full run, not --quick');
  return { settings: quick ? QUICK : FULL, only, cases, out, keep, writeDocs };
}

function usage(error?: string): never {
  const text =
    'usage: npm run bench [-- --quick] [--only budget,crawl,normalise,reports,spaces,shards,stored,realdata,redact,search,recordings,lake,alerts] [--cases a,e,g] [--out DIR] [--keep] [--write-docs]\n' +
    '  --quick   smaller N and time-scaled rate windows (about 3 minutes)\n' +
    '  --only    run only these sections\n' +
    `  --cases   run only these budget cases (${budgetCases().map((c) => `${c.key} ${c.algorithm}`).join(', ')})\n` +
    '  --out     where the JSON goes (default reports/bench)\n' +
    '  --keep    keep the temporary work folder\n' +
    '  --write-docs  rewrite the tables of docs/performance.md of the sections that ran\n';
  process.stderr.write(error ? `bench: ${error}\n${text}` : text);
  process.exit(error ? 2 : 0);
}

const log = (line: string): void => {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

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

async function main(): Promise<void> {
  const { settings, only, cases, out, keep, writeDocs } = parseArgs(process.argv.slice(2));
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
  /** the goals each section added, for the doc */
  const sectionGoals: Record<string, Goal[]> = {};
  const goalsOf = (name: Section, from: number): void => {
    sectionGoals[name] = goals.slice(from);
  };
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
      const from = goals.length;
      printBudget(r, settings, goals);
      goalsOf('budget', from);
    }
    if (only.has('crawl')) {
      const r = await timed('crawl', () => benchScale(settings.crawlSizes, settings.incrementalNew, work, log));
      sections.crawl = r;
      const from = goals.length;
      printCrawl(r, goals);
      goalsOf('crawl', from);
    }
    if (normalised) printNormalise(normalised);
    if (only.has('reports')) {
      const r = await timed('reports', () => benchReports(settings.reportConversations, work, log));
      sections.reports = r;
      const from = goals.length;
      printReports(r, goals);
      goalsOf('reports', from);
    }
    if (only.has('spaces')) {
      const r = await timed('spaces', () => benchSpaces(settings.spaces, work, log));
      sections.spaces = r;
      const from = goals.length;
      printSpaces(r, goals);
      goalsOf('spaces', from);
    }
    if (only.has('shards')) {
      const r = await timed('shards', () => benchShards(settings.shards, work, log));
      sections.shards = r;
      const from = goals.length;
      printShards(r, goals);
      goalsOf('shards', from);
    }
    if (only.has('stored')) {
      const r = await timed('stored', () => benchStored(settings.storedSizes, settings.storedAdded, work, log));
      sections.stored = r;
      const from = goals.length;
      printStored(r, goals);
      goalsOf('stored', from);
    }
    if (only.has('realdata')) {
      const r = await timed('realdata', () => benchRealData(settings.realData, work, log));
      sections.realdata = r;
      const from = goals.length;
      printRealData(r, goals);
      goalsOf('realdata', from);
    }
    if (only.has('redact')) {
      const r = await timed('redact', async () => benchRedact(settings.redactConversations, log));
      sections.redact = r;
      const from = goals.length;
      printRedact(r, goals);
      goalsOf('redact', from);
    }
    if (only.has('search')) {
      const r = await timed('search', () => benchSearch(settings.search, work, log));
      sections.search = r;
      const from = goals.length;
      printSearch(r, goals);
      goalsOf('search', from);
    }
    if (only.has('recordings')) {
      const r = await timed('recordings', () => benchRecordings(settings.recordings, work, log));
      sections.recordings = r;
      const from = goals.length;
      printRecordings(r, goals, settings.quick);
      goalsOf('recordings', from);
    }
    if (only.has('lake')) {
      const r = await timed('lake', () => benchLake(settings.lakeConversations, work, log));
      sections.lake = r;
      const from = goals.length;
      printLake(r, goals);
      goalsOf('lake', from);
    }
    if (only.has('alerts')) {
      const r = await timed('alerts', () => benchAlerts(settings.alertSizes, work, log));
      sections.alerts = r;
      const from = goals.length;
      printAlerts(r, goals);
      goalsOf('alerts', from);
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
  if (writeDocs !== null) {
    const figures: BenchFigures = {
      command,
      startedAt: new Date(started).toISOString(),
      machine: mach,
      loadAverageAtEnd: loadEnd,
      // a budget run of some cases only would drop the others' rows: its table stays as it is
      sections: (allCases ? sections : { ...sections, budget: undefined }) as BenchFigures['sections'],
      goals: sectionGoals,
    };
    const before = readFileSync(writeDocs, 'utf8');
    const after = writeBenchDocs(before, figures);
    writeFileSync(writeDocs, after);
    console.log(`${writeDocs}: ${after === before ? 'unchanged' : 'tables rewritten'} (sections measured: ${Object.keys(sections).join(', ')})`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
