// What each chart plots, taken from report rows: a row of the report as it is, or, where a chart
// shows a total over rows (all agents of a day, all channels of an agent), the sum of the rows'
// counts and, for a rate, the ratio of those sums, as the reports define it (over ended).

import type { ReportRows, Row } from '../rows.js';
import { num } from './kpis.js';
import { agentKey, type PageNames } from './names.js';
import type { Bucket } from './period.js';

export type Values = Record<string, string | number | boolean | null>[];

/** Charts with one panel per agent show at most this many agents (those with most conversations). */
export const MAX_AGENTS = 8;
/** The tool failures chart shows at most this many tools (those with most failures). */
export const MAX_TOOLS = 12;
/** The endings chart shows at most this many last nodes per agent (those with most endings). */
export const MAX_NODES = 8;

export const OUTCOMES: readonly { column: string; label: string }[] = [
  { column: 'completed', label: 'completed' },
  { column: 'transferred', label: 'transferred' },
  { column: 'hung_up', label: 'hung up' },
  { column: 'failed', label: 'failed' },
  { column: 'other', label: 'other' },
  { column: 'in_progress', label: 'in progress' },
];

export const UNKNOWN_NODE = '(path unknown)';

function text(cell: unknown): string {
  return cell === null || cell === undefined ? '' : String(cell);
}

/** The Monday of an ISO day's week (the reports' weeks run Monday to Sunday). */
export function weekOf(isoDay: string): string {
  const date = new Date(`${isoDay}T00:00:00Z`);
  const back = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - back * 86_400_000).toISOString().slice(0, 10);
}

function bucketOf(isoDay: string, bucket: Bucket): string {
  return bucket === 'week' ? weekOf(isoDay) : isoDay;
}

/**
 * `outcomes` rows summed per day (or week) and outcome; `partial` is true in a bucket the period
 * holds only part of (see partialBuckets), which the chart draws pale.
 */
export function volumeValues(outcomes: ReportRows, bucket: Bucket, partial: ReadonlySet<string> = new Set()): Values {
  const sums = new Map<string, Map<string, number>>();
  for (const row of outcomes.rows) {
    if (row.day === null) continue;
    const key = bucketOf(text(row.day), bucket);
    const counts = sums.get(key) ?? new Map<string, number>();
    for (const o of OUTCOMES) counts.set(o.label, (counts.get(o.label) ?? 0) + (num(row[o.column]) ?? 0));
    sums.set(key, counts);
  }
  const values: Values = [];
  for (const key of [...sums.keys()].sort()) {
    OUTCOMES.forEach((o, i) => {
      const n = sums.get(key)!.get(o.label)!;
      if (n > 0) values.push({ bucket: key, outcome: o.label, outcome_order: i, conversations: n, partial: partial.has(key) });
    });
  }
  return values;
}

/** The agents with most conversations (agent_leaderboard), at most MAX_AGENTS: agentKey → label. */
export function topAgents(leaderboard: ReportRows, names: PageNames): Map<string, string> {
  const rows = [...leaderboard.rows].sort((a, b) => (num(b.conversations) ?? 0) - (num(a.conversations) ?? 0));
  return new Map(rows.slice(0, MAX_AGENTS).map((r) => [agentKey(r), names.agent(r)]));
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 10_000;
}

/**
 * Containment (completed ÷ ended) and transfer rate per agent and bucket: per week the rows of
 * `containment_trend` as they are; per day the `outcomes` rows of the agent's channels summed.
 * Each point carries its `ended` (the chart sizes points by it: a rate of 2 conversations is a dot)
 * and whether its bucket is partial.
 */
export function trendValues(
  outcomes: ReportRows,
  trend: ReportRows,
  bucket: Bucket,
  agents: Map<string, string>,
  partial: ReadonlySet<string> = new Set(),
): Values {
  const points: { agent: string; bucket: string; ended: number; contained: number | null; transferred: number | null }[] = [];
  if (bucket === 'week') {
    for (const row of trend.rows) {
      const agent = agents.get(agentKey(row));
      if (agent === undefined || num(row.ended) === 0) continue;
      points.push({
        agent,
        bucket: text(row.week),
        ended: num(row.ended) ?? 0,
        contained: num(row.containment_rate),
        transferred: num(row.transfer_rate),
      });
    }
  } else {
    const sums = new Map<string, { agent: string; bucket: string; ended: number; completed: number; transferred: number }>();
    for (const row of outcomes.rows) {
      const agent = agents.get(agentKey(row));
      if (agent === undefined || row.day === null) continue;
      const key = `${agentKey(row)}\u0000${text(row.day)}`;
      const s = sums.get(key) ?? { agent, bucket: text(row.day), ended: 0, completed: 0, transferred: 0 };
      s.ended += num(row.ended) ?? 0;
      s.completed += num(row.completed) ?? 0;
      s.transferred += num(row.transferred) ?? 0;
      sums.set(key, s);
    }
    for (const s of sums.values()) {
      if (s.ended === 0) continue;
      points.push({ ...s, contained: ratio(s.completed, s.ended), transferred: ratio(s.transferred, s.ended) });
    }
  }
  const order = [...agents.values()];
  points.sort((a, b) => order.indexOf(a.agent) - order.indexOf(b.agent) || (a.bucket < b.bucket ? -1 : 1));
  return points.flatMap((p) => [
    { agent: p.agent, bucket: p.bucket, measure: 'contained', rate: p.contained, ended: p.ended, partial: partial.has(p.bucket) },
    { agent: p.agent, bucket: p.bucket, measure: 'transferred', rate: p.transferred, ended: p.ended, partial: partial.has(p.bucket) },
  ]);
}

/** `transfer_nodes` and `drop_off` rows of the shown agents, the MAX_NODES last nodes with most endings each. */
export function endingValues(transfers: ReportRows, hangUps: ReportRows, agents: Map<string, string>): Values {
  const rows = [
    ...transfers.rows.map((r) => ({ r, ending: 'transferred', n: num(r.transfers) ?? 0 })),
    ...hangUps.rows.map((r) => ({ r, ending: 'hung up', n: num(r.hang_ups) ?? 0 })),
  ];
  const values: Values = [];
  for (const [key, agent] of agents) {
    const mine = rows.filter((x) => agentKey(x.r) === key);
    const totals = new Map<string, number>();
    for (const x of mine) totals.set(text(x.r.node_key), (totals.get(text(x.r.node_key)) ?? 0) + x.n);
    const kept = new Set(
      [...totals.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, MAX_NODES)
        .map(([node]) => node),
    );
    for (const x of mine) {
      if (!kept.has(text(x.r.node_key))) continue;
      values.push({
        agent,
        node: x.r.node_key === null || x.r.node_key === '' ? UNKNOWN_NODE : text(x.r.node_key),
        ending: x.ending,
        conversations: x.n,
        share: num(x.r.share),
      });
    }
  }
  return values;
}

/** `failures_by_status` as written by the tool_failures report: `timeout:3; error:2`. */
export function parseStatusMix(cell: unknown): { status: string; failures: number }[] {
  if (typeof cell !== 'string' || cell === '') return [];
  return cell.split('; ').map((part) => {
    const at = part.lastIndexOf(':');
    return { status: part.slice(0, at), failures: Number(part.slice(at + 1)) };
  });
}

/** Label of a tool on the chart: its name (with its space on a page of several) and how often its calls fail. */
export function toolLabel(row: Row, names: PageNames): string {
  const rate = num(row.failure_rate);
  const name = names.tool(row);
  return rate === null ? name : `${name} · ${(rate * 100).toFixed(1)}%`;
}

/** `tool_failures` rows with failures (most first, at most MAX_TOOLS), split by status. */
export function toolFailureValues(toolFailures: ReportRows, names: PageNames): Values {
  const failing = toolFailures.rows.filter((r) => (num(r.failures) ?? 0) > 0).slice(0, MAX_TOOLS);
  return failing.flatMap((row) =>
    parseStatusMix(row.failures_by_status).map((s) => ({
      tool: toolLabel(row, names),
      status: s.status,
      failures: s.failures,
      failure_rate: num(row.failure_rate),
      calls: num(row.calls),
    })),
  );
}

/** `duration_histogram` rows as they are. */
export function durationValues(histogram: ReportRows): Values {
  return histogram.rows.map((r) => ({
    channel: text(r.channel) || '(no channel)',
    band: text(r.band),
    share: num(r.share),
    conversations: num(r.conversations),
  }));
}

/** `hourly_volume` rows as they are. */
export function weekdayHourValues(hourly: ReportRows): Values {
  return hourly.rows.map((r) => ({ day: text(r.day_name), hour: num(r.hour), conversations: num(r.conversations) }));
}

/** The endings the abandonment chart stacks, in order, with the report's column for each. */
export const ENDINGS: readonly { column: string; label: string }[] = [
  { column: 'contained', label: 'contained' },
  { column: 'transferred', label: 'transferred' },
  { column: 'abandoned', label: 'abandoned' },
  { column: 'failed', label: 'failed' },
  { column: 'other', label: 'other' },
];

/** `abandonment` rows summed per agent (over its days), each ending's share of the agent's ended. */
export function abandonmentValues(abandonment: ReportRows, agents: Map<string, string>): Values {
  const sums = new Map<string, Map<string, number>>();
  for (const row of abandonment.rows) {
    const agent = agents.get(agentKey(row));
    if (agent === undefined) continue;
    const s = sums.get(agent) ?? new Map<string, number>();
    for (const c of ['ended', ...ENDINGS.map((e) => e.column)]) s.set(c, (s.get(c) ?? 0) + (num(row[c]) ?? 0));
    sums.set(agent, s);
  }
  return [...sums].flatMap(([agent, s]) =>
    ENDINGS.filter((e) => (s.get(e.column) ?? 0) > 0).map((e, order) => ({
      agent,
      ending: e.label,
      order,
      conversations: s.get(e.column)!,
      share: ratio(s.get(e.column)!, s.get('ended')!),
    })),
  );
}

/** `response_times` rows of level agent for the agents shown: p50 and p90 per agent and channel. */
export function responseTimeValues(responseTimes: ReportRows, agents: Map<string, string>): Values {
  return responseTimes.rows
    .filter((r) => r.level === 'agent' && agents.has(agentKey(r)))
    .flatMap((r) =>
      (['p50', 'p90'] as const).map((measure) => ({
        agent: `${agents.get(agentKey(r))} · ${text(r.channel)}`,
        measure,
        seconds: num(r[`${measure}_sec`]),
        slow_share: num(r.slow_share),
        answers: num(r.answers),
      })),
    );
}
