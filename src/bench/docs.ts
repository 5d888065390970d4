// `npm run bench -- --write-docs`: the tables of docs/performance.md written from the figures the
// bench just measured. Each table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`;
// a block whose section did not run (--only) is left as it is. Pure: text in, text out (run.ts
// reads and writes the file).

import { defaultBurst } from '../simulator/index.js';
import type { BudgetResult } from './budget.js';
import { fixed } from './measure.js';
import type { NormaliseResult } from './normalise.js';
import { int, secs, type Goal } from './print.js';
import type { RealDataResult } from './real-data.js';
import { lakeDocTable, type LakeResult } from './lake.js';
import { alertsDocTable, type AlertBenchResult } from './alerts.js';
import type { RecordingsBenchResult } from './recordings.js';
import type { ReportsResult } from './reports.js';
import type { ScaleResult } from './scale.js';
import type { SpacesResult } from './many-keys.js';
import { searchDocTable, type SearchBenchResult } from './search.js';
import { shardsDocTable } from './shards-print.js';
import type { ShardsResult } from './shards.js';
import type { StoredResult } from './stored.js';

/** What one bench run measured, as run.ts writes it to its JSON. */
export interface BenchFigures {
  command: string;
  startedAt: string;
  machine: { revision?: unknown; cores?: unknown; cpu?: unknown; memoryGb?: unknown; node?: unknown; duckdb?: unknown; loadAverageAtStart?: unknown };
  loadAverageAtEnd: number[];
  sections: {
    budget?: { cases: BudgetResult[] };
    crawl?: ScaleResult;
    normalise?: NormaliseResult;
    reports?: ReportsResult;
    spaces?: SpacesResult;
    stored?: StoredResult[];
    realdata?: RealDataResult;
    search?: SearchBenchResult;
    shards?: ShardsResult;
    lake?: LakeResult;
    alerts?: AlertBenchResult;
    recordings?: RecordingsBenchResult;
  };
  /** the goals each section added, by section */
  goals: Record<string, Goal[]>;
}

type Section = keyof BenchFigures['sections'];

/** A block of the doc: the section it comes from, and its text from that section's figures. */
interface Block {
  section: Section;
  render: (f: BenchFigures) => string;
  /** which of the section's goals this block states (default: all of them) */
  goals?: (g: Goal) => boolean;
}

function markdownTable(headers: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(headers), `|${headers.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

const mb = (x: number): string => `${fixed(x, 0)} MB`;
const bold = (s: string): string => `**${s}**`;

function budgetTable(f: BenchFigures): string {
  const cases = f.sections.budget!.cases;
  const rows = cases.map((r) => {
    const c = r.case;
    const u = r.convoduck.use;
    const shared = c.otherPerWindow > 0;
    const reading = c.algorithm === 'bucket' ? `token bucket, burst ${c.burst ?? defaultBurst(c.limit)}` : c.algorithm === 'fixed' ? 'fixed window' : c.algorithm;
    return [
      `${c.key}. ${c.limit}/min, ${c.latencyMs} ms responses${shared ? `, another client spends ${c.otherPerWindow}/min` : ''}`,
      reading,
      u.own.join(', '),
      `${bold(fixed(u.utilisation, 3))}${shared ? ` of the ${u.left} left` : ''}`,
      `${r.convoduck.maxOwnRolling} / ${r.convoduck.maxKeyRolling} of ${c.limit}`,
      `${r.convoduck.throttled} / ${shared ? r.convoduck.otherThrottled : '–'}`,
      fixed(r.timeRatio, 3),
    ];
  });
  return markdownTable(['case', 'reading', 'per minute', 'utilisation', 'max in any 60 s', "429s (ours / other's)", 'time ÷ naive'], rows);
}

function crawlRequestsTable(f: BenchFigures): string {
  const r = f.sections.crawl!;
  const rows = r.crawls.map((c) => [`full sync of ${int(c.conversations)}`, int(c.requests), int(c.minimum), bold(fixed(c.overhead, 4)), `${int(c.listRequests)} (${int(c.listMinimum)})`]);
  const inc = r.incremental;
  if (inc) {
    const listMinimum = Math.ceil((inc.added + inc.finished) / 200);
    rows.push([`incremental sync after ${int(inc.added)} new and ${int(inc.finished)} finished`, int(inc.requests), int(inc.minimum), bold(`minimum + ${inc.requests - inc.minimum}`), `${int(inc.listRequests)} (${int(listMinimum)})`]);
  }
  return markdownTable(['run', 'requests', 'minimum', 'ratio', 'list pages (minimum)'], rows);
}

function crawlMemoryTable(f: BenchFigures): string {
  const rows = f.sections.crawl!.crawls.map((c) => [int(c.conversations), bold(mb(c.maxRssMb)), `${secs(c.seconds)} s`, `${secs(c.cpuSec)} s`]);
  return markdownTable(['conversations', 'peak RSS', 'wall time', 'CPU'], rows);
}

function normaliseTable(f: BenchFigures): string {
  const r = f.sections.normalise!;
  const head =
    `${int(r.details)} generated details (${int(r.transcriptTurns)} transcript turns, ${int(r.toolCalls)} tool calls, ` +
    `${int(r.nodeVisits)} node visits):\n\n`;
  const rows = [
    ["convoduck's write path (pages of 200, batches of 100, one open database)", bold(int(r.convoduck.detailsPerSec)), int(r.convoduck.turnsPerSec), `${secs(r.convoduck.seconds)} s`],
    ["DuckDB's `read_json` + SQL unnesting of the same data as NDJSON (the floor)", int(r.floor.detailsPerSec), int(r.floor.turnsPerSec), `${secs(r.floor.seconds)} s`],
    ['`convoduck rebuild` of the same data', int(r.rebuild.detailsPerSec), '', `${secs(r.rebuild.seconds)} s`],
  ];
  return `${head}${markdownTable(['loader', 'details/s', 'turns/s', 'time'], rows)}\n\nconvoduck takes ${bold(`${fixed(r.ratio, 1)}×`)} the floor's time.`;
}

function reportsTable(f: BenchFigures): string {
  const r = f.sections.reports!;
  const c = r.counts;
  const head =
    `${r.reports.length} reports over ${int(c.conversations)} conversations (${int(c.transcriptTurns)} transcript turns, ` +
    `${int(c.nodeVisits)} node visits, ${int(c.toolCalls)} tool calls, generated in SQL in ${secs(r.generateSec)} s into a ${fixed(r.dbMb / 1000, 1)} GB file):\n\n`;
  const slowest = [...r.reports].sort((a, b) => b.seconds - a.seconds);
  const rows = [
    [`all reports, one \`report\` run: the median of ${r.runTotalsSec.length} (${r.runTotalsSec.map(secs).join(', ')} s)`, bold(`${secs(r.totalSec)} s`), ''],
    ['the shared relations the reports read (`sql/shared/`)', `${secs(r.baseSec)} s`, ''],
    ...slowest.map((x) => [`\`${x.name}\``, `${secs(x.seconds)} s`, int(x.rows)]),
  ];
  return `${head}${markdownTable(['report', 'time', 'rows'], rows)}`;
}

function spacesTable(f: BenchFigures): string {
  const r = f.sections.spaces!;
  const s = r.settings;
  const u = r.utilisation;
  const statuses = Object.entries(r.statuses).map(([k, v]) => `${v} ${k}`).join(', ');
  return markdownTable(
    ['spaces', 'details', 'details/s (of budget)', 'utilisation min / median / max', 'lowest window', '429s', 'peak RSS', 'CPU', 'wall', 'exit'],
    [
      [
        `${s.count} × ${int(s.conversations)}`,
        int(r.details),
        `${bold(fixed(r.detailsPerSec, 1))} (${fixed(r.budgetPerSec, 0)})`,
        `${bold(fixed(u.min, 3))} / ${fixed(u.median, 3)} / ${fixed(u.max, 3)}`,
        fixed(r.worstWindow, 3),
        String(r.throttled),
        bold(mb(r.maxRssMb)),
        `${secs(r.cpuSec)} s`,
        `${secs(r.seconds)} s`,
        `${r.exitCode}, ${statuses}`,
      ],
    ],
  );
}

function storedTable(f: BenchFigures): string {
  const fileSize = (x: number): string => (x >= 1000 ? `${fixed(x / 1000, 1)} GB` : mb(x));
  const rows = f.sections.stored!.map((r) => [int(r.stored), fileSize(r.dbMb), `${secs(r.generateSec)} s`, bold(mb(r.maxRssMb)), `${secs(r.seconds)} s`, fixed(r.detailsPerSec, 0), `${secs(r.cpuSec)} s`]);
  return markdownTable(['stored', 'file', 'generated in', 'peak RSS', 'wall', 'details/s', 'CPU'], rows);
}

function realDataTables(f: BenchFigures): string {
  const { long: l, mixes } = f.sections.realdata!;
  const long = markdownTable(
    ['conversations', `long (${int(l.longTurns)} turns)`, 'peak RSS', 'largest body stored', 'turns stored', 'wall', 'CPU', 'status'],
    [[int(l.conversations), int(l.longConversations), bold(mb(l.maxRssMb)), `${fixed(l.largestBodyMb, 1)} MB`, int(l.turnsStored), `${secs(l.seconds)} s`, `${secs(l.cpuSec)} s`, l.status]],
  );
  const range = (pick: (m: (typeof mixes)[number]) => number): string => {
    const values = mixes.map(pick);
    const lo = Math.min(...values);
    const hi = Math.max(...values);
    return lo === hi ? int(lo) : `${int(lo)}–${int(hi)}`;
  };
  const seeds = mixes.map((m) => m.seed);
  const runsOk = mixes.every((m) => m.statuses.split(/[,/ ]+/).filter(Boolean).every((s) => s === 'ok'));
  const mix = markdownTable(
    ['seeds', 'listed each', 'exact / coerced / set aside / deleted (range)', 'runs', 'as the truth says'],
    [
      [
        `${Math.min(...seeds)}–${Math.max(...seeds)}`,
        range((m) => m.listed),
        `${range((m) => m.exact)} / ${range((m) => m.coerced)} / ${range((m) => m.setAside)} / ${range((m) => m.deleted)}`,
        runsOk ? 'every run ok' : 'not every run ok',
        `${mixes.filter((m) => m.ok).length} of ${mixes.length}`,
      ],
    ],
  );
  return `${long}\n\n${mix}`;
}

function recordingsTable(f: BenchFigures): string {
  const rows = f.sections.recordings!.runs.map((x) => [
    x.recordings ? 'with `--recordings`' : 'without',
    secs(x.wallSec),
    int(x.apiRequests),
    bold(`${fixed(x.utilisation * 100, 1)}%`),
    int(x.stored),
    fixed(x.bytes / 1e6, 1),
    fixed(x.bytesPerSec / 1e6, 2),
    bold(fixed(x.maxRssMb, 0)),
  ]);
  return markdownTable(['sync', 'wall s', 'API requests', 'key budget used', 'recordings stored', 'MB stored', 'MB/s', 'peak RSS MB'], rows);
}

export const BLOCKS: Record<string, Block> = {
  budget: { section: 'budget', render: budgetTable },
  'crawl-requests': { section: 'crawl', render: crawlRequestsTable, goals: (g) => g.what.startsWith('request overhead') },
  'crawl-memory': { section: 'crawl', render: crawlMemoryTable, goals: (g) => g.what.startsWith('peak RSS') },
  normalise: { section: 'normalise', render: normaliseTable },
  reports: { section: 'reports', render: reportsTable },
  spaces: { section: 'spaces', render: spacesTable },
  stored: { section: 'stored', render: storedTable },
  realdata: { section: 'realdata', render: realDataTables },
  search: { section: 'search', render: (f) => searchDocTable(f.sections.search!) },
  shards: { section: 'shards', render: (f) => shardsDocTable(f.sections.shards!) },
  lake: { section: 'lake', render: (f) => lakeDocTable(f.sections.lake!) },
  alerts: { section: 'alerts', render: (f) => alertsDocTable(f.sections.alerts!) },
  recordings: { section: 'recordings', render: recordingsTable },
};

/** The goals a block states, in one line: each with its verdict, or a count when there are many. */
function goalLine(goals: Goal[]): string {
  if (goals.length === 0) return '';
  const verdict = (g: Goal): string => (g.met ? 'met' : g.scaled ? 'not met (time-scaled)' : '**not met**');
  if (goals.length > 4) {
    const missed = goals.filter((g) => !g.met);
    const listed = missed.map((g) => `${g.what} (${g.goal}): ${verdict(g)}, ${g.measured}`).join('; ');
    return `Goals: ${goals.length - missed.length} of ${goals.length} met${listed ? `; ${listed}` : ''}.`;
  }
  return `Goals: ${goals.map((g) => `${g.what}, ${g.goal}: ${verdict(g)} (${g.measured})`).join('; ')}.`;
}

/** Where and how the figures were measured: the command, its date, the machine. */
function provenance(f: BenchFigures): string {
  const m = f.machine;
  const load = Array.isArray(m.loadAverageAtStart) ? String(m.loadAverageAtStart[0]) : '?';
  return (
    `Measured by \`${f.command}\` on ${f.startedAt.slice(0, 10)}: ${String(m.cores)} cores (${String(m.cpu)}), ` +
    `${String(m.memoryGb)} GB, Node ${String(m.node)}, DuckDB ${String(m.duckdb)}; load average ${load} at the start and ${String(f.loadAverageAtEnd[0] ?? '?')} at the end.`
  );
}

/** The text between a block's markers, from the run's figures. */
export function renderBlock(name: string, f: BenchFigures): string {
  const block = BLOCKS[name]!;
  const goals = (f.goals[block.section] ?? []).filter(block.goals ?? (() => true));
  return [block.render(f), goalLine(goals), `_${provenance(f)}_`].filter(Boolean).join('\n\n');
}

/**
 * The doc with every block whose section the run measured written anew; the others, and
 * everything outside the markers, as they were. A marker naming no known block is an error.
 */
export function writeBenchDocs(doc: string, f: BenchFigures): string {
  for (const [, name] of doc.matchAll(/<!-- bench:([\w-]+) -->/g)) {
    if (!doc.includes(`<!-- /bench:${name} -->`)) throw new Error(`docs: <!-- bench:${name} --> has no <!-- /bench:${name} -->`);
  }
  const marker = /<!-- bench:([\w-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->/g;
  return doc.replace(marker, (whole, name: string) => {
    const block = BLOCKS[name];
    if (!block) throw new Error(`docs: unknown bench block "${name}" (known: ${Object.keys(BLOCKS).join(', ')})`);
    if (f.sections[block.section] === undefined) return whole;
    return `<!-- bench:${name} -->\n${renderBlock(name, f)}\n<!-- /bench:${name} -->`;
  });
}
