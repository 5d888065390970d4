// The check that a page written by `report --html` shows the CSV reports' figures for the same
// filters: every tile, every value a chart drew, every table cell. The expected chart values are
// computed here from the CSV files (sums of a report's counts where a chart totals several rows),
// never from the page's own code.

import { expect } from 'vitest';
import { n, rateOf, readCsv, type Page } from './html-page.js';

export type Csv = (report: string) => Record<string, string>[];

const TILE_COLUMNS = ['conversations', 'completion_rate', 'transfer_rate', 'hang_up_rate', 'median_duration_sec', 'tool_failure_rate'];
const OUTCOMES: [string, string][] = [
  ['completed', 'completed'],
  ['transferred', 'transferred'],
  ['hung_up', 'hung up'],
  ['failed', 'failed'],
  ['other', 'other'],
  ['in_progress', 'in progress'],
];
const MAX_AGENTS = 8;
const MAX_NODES = 8;
const MAX_TOOLS = 12;

function sorted(items: string[]): string[] {
  return [...items].sort();
}

function r4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

export function csvIn(dir: string): Csv {
  return (report) => readCsv(`${dir}/${report}.csv`);
}

function mondayOf(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  return new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
}

/** The spaces of the reports' agents and tools: with several, the page names each thing with its space. */
export function csvSpaces(csv: Csv): string[] {
  return [...new Set([...csv('agent_leaderboard'), ...csv('tool_failures')].map((r) => r.space!).filter((s) => s !== ''))].sort();
}

/** A row's agent: its space and id (two spaces may hold agents of one name). */
export function agentOf(r: Record<string, string>): string {
  return `${r.space}/${r.agent_id}`;
}

/** The label a chart gives a row's agent or tool: its name, and its space when the page holds several. */
function labeller(csv: Csv): { agent: (r: Record<string, string>) => string; tool: (r: Record<string, string>) => string } {
  const spaced = csvSpaces(csv).length > 1;
  const withSpace = (name: string, r: Record<string, string>) => (spaced ? `${name} (${r.space})` : name);
  return { agent: (r) => withSpace(r.agent_name || r.agent_id!, r), tool: (r) => withSpace(r.tool_name || r.slug!, r) };
}

/** The agents a per-agent chart shows: most conversations first (agent_leaderboard), at most 8: agentOf → label. */
function shownAgents(csv: Csv): Map<string, string> {
  const rows = [...csv('agent_leaderboard')].sort((a, b) => n(b.conversations)! - n(a.conversations)!);
  return new Map(rows.slice(0, MAX_AGENTS).map((r) => [agentOf(r), labeller(csv).agent(r)]));
}

export function expectPageMatchesCsv(page: Page, csv: Csv, previous: Record<string, string> | null, bucket: 'day' | 'week'): void {
  const summary = csv('summary')[0]!;
  for (const column of TILE_COLUMNS) {
    const tile = page.tiles.get(column);
    if (n(summary.conversations) === 0) {
      expect(tile, column).toBeUndefined();
      continue;
    }
    expect(n(tile?.value), column).toBe(n(summary[column]));
    expect(n(tile?.previous), `${column} before`).toBe(previous ? n(previous[column]) : null);
  }
  if (n(summary.conversations) === 0) {
    expect(page.empty).toBe(true);
    expect(page.charts.size).toBe(0);
    return;
  }
  expect(page.empty).toBe(false);

  const coverage = csv('coverage');
  const incomplete = coverage.reduce((s, r) => s + n(r.details_missing)! + n(r.details_invalid)! + n(r.details_in_progress)!, 0);
  expect(page.incomplete).toBe(incomplete === 0 ? null : incomplete);

  // volume: outcomes summed per day (or week) and outcome
  const key = bucket === 'day' ? 'day' : 'week (from Monday)';
  const volume = new Map<string, number>();
  for (const row of csv('outcomes')) {
    const b = bucket === 'day' ? row.day! : mondayOf(row.day!);
    for (const [column, label] of OUTCOMES) volume.set(`${b}|${label}`, (volume.get(`${b}|${label}`) ?? 0) + n(row[column])!);
  }
  expect(sorted(page.charts.get('volume')!.marks.map((m) => `${m[key]}|${m.outcome}|${m.conversations}`))).toEqual(
    sorted([...volume].filter(([, v]) => v > 0).map(([k, v]) => `${k}|${v}`)),
  );

  // trend: per week the containment_trend rows; per day outcomes summed over the agent's channels
  const agents = shownAgents(csv);
  const points: string[] = [];
  if (bucket === 'week') {
    for (const r of csv('containment_trend')) {
      if (!agents.has(agentOf(r)) || n(r.ended) === 0) continue;
      points.push(`${agents.get(agentOf(r))}|${r.week}|contained|${n(r.containment_rate)}`);
      points.push(`${agents.get(agentOf(r))}|${r.week}|transferred|${n(r.transfer_rate)}`);
    }
  } else {
    const sums = new Map<string, [number, number, number]>();
    for (const r of csv('outcomes')) {
      if (!agents.has(agentOf(r))) continue;
      const k = `${agents.get(agentOf(r))}|${r.day}`;
      const s = sums.get(k) ?? [0, 0, 0];
      sums.set(k, [s[0] + n(r.ended)!, s[1] + n(r.completed)!, s[2] + n(r.transferred)!]);
    }
    for (const [k, [ended, completed, transferred]] of sums) {
      if (ended === 0) continue;
      points.push(`${k}|contained|${r4(completed / ended)}`, `${k}|transferred|${r4(transferred / ended)}`);
    }
  }
  const trend = page.charts.get('agent_trend')!.marks.map((m) => `${m.agent}|${m.bucket}|${m.measure}|${rateOf(m.rate)}`);
  expect(sorted(trend)).toEqual(sorted(points));

  // endings: transfer_nodes and drop_off rows, the 8 last nodes with most endings per agent
  const endings = [
    ...csv('transfer_nodes').map((r) => ({ r, ending: 'transferred', count: n(r.transfers)! })),
    ...csv('drop_off').map((r) => ({ r, ending: 'hung up', count: n(r.hang_ups)! })),
  ].filter((e) => agents.has(agentOf(e.r)));
  const drawn = page.charts.get('endings')!.marks.map((m) => `${m.agent}|${m.node}|${m['ended by']}|${m.conversations}|${rateOf(m.share)}`);
  const all = endings.map((e) => `${agents.get(agentOf(e.r))}|${e.r.node_key || '(path unknown)'}|${e.ending}|${e.count}|${n(e.r.share)}`);
  for (const mark of drawn) expect(all).toContain(mark);
  for (const agent of agents.values()) {
    const nodes = new Set(all.filter((a) => a.startsWith(`${agent}|`)).map((a) => a.split('|')[1]));
    const shown = new Set(drawn.filter((a) => a.startsWith(`${agent}|`)).map((a) => a.split('|')[1]));
    expect(shown.size, agent).toBe(Math.min(MAX_NODES, nodes.size));
  }
  if (all.length <= MAX_NODES) expect(sorted(drawn)).toEqual(sorted(all));

  // tool failures: tools with failures, most first (at most 12), split by failures_by_status
  const tools = csv('tool_failures')
    .filter((r) => n(r.failures)! > 0)
    .slice(0, MAX_TOOLS)
    .flatMap((r) =>
      r.failures_by_status!.split('; ').map((part) => {
        const [status, count] = [part.slice(0, part.lastIndexOf(':')), part.slice(part.lastIndexOf(':') + 1)];
        const label = `${labeller(csv).tool(r)} · ${(n(r.failure_rate)! * 100).toFixed(1)}%`;
        return `${label}|${status}|${count}|${n(r.failure_rate)}|${r.calls}`;
      }),
    );
  const toolMarks = page.charts.get('tool_failures')!.marks;
  expect(sorted(toolMarks.map((m) => `${m.tool}|${m.status}|${m['failed calls']}|${rateOf(m['failure rate'])}|${m.calls}`))).toEqual(sorted(tools));

  // durations and the weekday × hour heat map: the rows as they are
  expect(sorted(page.charts.get('durations')!.marks.map((m) => `${m.channel}|${m.duration}|${rateOf(m.share)}|${m.conversations}`))).toEqual(
    sorted(csv('duration_histogram').map((r) => `${r.channel}|${r.band}|${n(r.share)}|${r.conversations}`)),
  );
  expect(sorted(page.charts.get('weekday_hour')!.marks.map((m) => `${m.day}|${m.hour}|${m.conversations}`))).toEqual(
    sorted(csv('hourly_volume').map((r) => `${r.day_name}|${r.hour}|${r.conversations}`)),
  );

  // the Why section: endings per agent summed over its days (share of ended), answer times per
  // agent and channel as the report has them
  const endingsOf = new Map<string, Map<string, number>>();
  for (const r of csv('abandonment')) {
    if (!agents.has(agentOf(r))) continue;
    const s = endingsOf.get(agents.get(agentOf(r))!) ?? new Map<string, number>();
    for (const c of ['ended', 'contained', 'transferred', 'abandoned', 'failed', 'other']) s.set(c, (s.get(c) ?? 0) + n(r[c])!);
    endingsOf.set(agents.get(agentOf(r))!, s);
  }
  const endingMarks = [...endingsOf].flatMap(([agent, s]) =>
    ['contained', 'transferred', 'abandoned', 'failed', 'other'].filter((c) => s.get(c)! > 0).map((c) => `${agent}|${c}|${s.get(c)}|${r4(s.get(c)! / s.get('ended')!)}`),
  );
  expect(sorted(page.charts.get('abandonment')!.marks.map((m) => `${m.agent}|${m.ended}|${m.conversations}|${rateOf(m.share)}`))).toEqual(sorted(endingMarks));
  const answerMarks = csv('response_times')
    .filter((r) => r.level === 'agent' && agents.has(agentOf(r)))
    .flatMap((r) => ['p50', 'p90'].map((m) => `${agents.get(agentOf(r))} · ${r.channel}|${m}|${n(r[`${m}_sec`])}|${r.answers}`));
  expect(sorted(page.charts.get('response_times')!.marks.map((m) => `${m.agent}|${m.measure}|${n(m.seconds)}|${m.answers}`))).toEqual(sorted(answerMarks));

  // tables: the leaderboard as it is, the 20 newest failed tool calls
  const numeric = (v: string | undefined) => (v === undefined || v === '' || Number.isNaN(Number(v)) ? v : String(Number(v)));
  const same = (rows: Record<string, string>[], expected: Record<string, string>[]) => {
    expect(rows.length).toBe(expected.length);
    rows.forEach((row, i) => {
      for (const [col, value] of Object.entries(row)) expect(numeric(value), `${col} row ${i}`).toBe(numeric(expected[i]![col]));
    });
  };
  same(page.tables.get('agent_leaderboard')!, csv('agent_leaderboard'));
  same(page.tables.get('tool_failure_log') ?? [], csv('tool_failure_log').slice(0, 20));
  // the hand-off precursors other than nodes seen at least 3 times, highest lift first (none: first)
  const lift = (r: Record<string, string>) => (r.lift === '' ? Infinity : Number(r.lift));
  const precursors = csv('handoff_precursors')
    .filter((r) => r.event !== 'node' && n(r.with_event)! >= 3)
    .sort((a, b) => (lift(a) === lift(b) ? 0 : lift(a) < lift(b) ? 1 : -1) || n(b.with_event)! - n(a.with_event)!)
    .slice(0, 10);
  same(page.tables.get('handoff_precursors') ?? [], precursors);
}
