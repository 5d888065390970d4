// The reports computed again in TypeScript, independently of their SQL, from the simulator's own
// data: one Conv per conversation as the database should know it (conversationModel), then the
// expected rows of each report over a selection of them. Tests compare these with the CSV files
// the runner writes; nothing here re-runs the reports' SQL.

import type { ConversationDetail, ConversationSummary, NodePathEntry, ToolCallEntry } from '../../src/api/types.js';

export type DetailStatus = 'stored' | 'in_progress' | 'set_aside' | 'deleted' | 'missing';

/** One conversation as the database should know it. */
export interface Conv {
  id: string;
  agentId: string;
  agentName: string | null;
  channel: string;
  direction: string;
  startedAt: Date;
  endedAt: Date | null;
  duration: number | null;
  messages: number;
  outcome: string | null;
  summary: string | null;
  detailStatus: DetailStatus;
  hasError: boolean;
  /** stored with a value coerced (sent as a numeric string) */
  coerced: boolean;
  /** when convoduck saw it deleted at the source (null: not deleted) */
  deletedAt: Date | null;
  /** known only when a usable detail is stored */
  path: NodePathEntry[];
  calls: ToolCallEntry[];
  transcript: { speaker: string; text: string }[];
  lastNode: string | null;
  lastNodeAt: Date | null;
}

/** What became of each conversation's detail in the fixture, beside what the API served. */
export interface DetailStates {
  /** listed, detail not fetched yet */
  missing: Set<string>;
  /** detail body unusable (set aside) */
  invalid: Set<string>;
  /** a detail error recorded */
  failing: Set<string>;
  /** seen deleted at the source, and when */
  deleted: Map<string, Date>;
  /** stored with a value coerced */
  coerced: Set<string>;
}

/** One conversation as the database should know it, from its summary and (when usable) its detail. */
export function conversationModel(
  s: ConversationSummary,
  detailOf: (id: string) => ConversationDetail | undefined,
  agentNames: Map<string, string>,
  states: DetailStates,
): Conv {
  const { missing, invalid, failing } = states;
  const deletedAt = states.deleted.get(s.id) ?? null;
  const usable = !missing.has(s.id) && !invalid.has(s.id) && deletedAt === null;
  const detail: ConversationDetail | undefined = usable ? detailOf(s.id) : undefined;
  const rec = detail ?? s;
  const path = detail?.node_path ?? [];
  const last = path[path.length - 1];
  const detailStatus: DetailStatus = missing.has(s.id)
    ? 'missing'
    : deletedAt !== null
      ? 'deleted'
      : invalid.has(s.id)
      ? 'set_aside'
      : detail!.outcome === null || detail!.ended_at === null
        ? 'in_progress'
        : 'stored';
  return {
    id: s.id,
    agentId: rec.agent_id,
    agentName: agentNames.get(rec.agent_id) ?? null,
    channel: rec.channel,
    direction: rec.direction,
    startedAt: new Date(rec.started_at),
    endedAt: rec.ended_at === null ? null : new Date(rec.ended_at),
    duration: rec.duration_sec,
    messages: rec.message_count,
    outcome: rec.outcome,
    summary: rec.summary ?? null,
    detailStatus,
    hasError: failing.has(s.id),
    coerced: states.coerced.has(s.id),
    deletedAt,
    path,
    calls: detail?.tool_calls ?? [],
    transcript: (detail?.transcript ?? []).map((t) => ({ speaker: t.speaker, text: t.text })),
    lastNode: last?.node_key ?? null,
    lastNodeAt: last ? new Date(last.at) : null,
  };
}

export type Cell = string | number | boolean | null;
export type Expected = Record<string, Cell>;

export function ratio(num: number, den: number): number | null {
  return den === 0 ? null : num / den;
}

/** Same formula injection rule as the runner, written independently. */
export function neutralise(text: string): string {
  return /^[=+\-@\t\r\n]/.test(text) ? `'${text}` : text;
}

export function isoZ(d: Date | null): string | null {
  return d === null ? null : d.toISOString().replace('.000Z', 'Z');
}

export function quantile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Local calendar parts of an instant in an IANA zone, from the JS runtime's own tz data. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const localCache = new Map<string, { day: string; hour: number; isoDow: number }>();

export function local(d: Date, tz: string): { day: string; hour: number; isoDow: number } {
  const key = `${tz} ${d.getTime()}`;
  const cached = localCache.get(key);
  if (cached) return cached;
  let formatter = formatters.get(tz);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      hourCycle: 'h23',
      weekday: 'short',
    });
    formatters.set(tz, formatter);
  }
  const parts = formatter.formatToParts(d);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const dow = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday')) + 1;
  const result = { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')), isoDow: dow };
  localCache.set(key, result);
  return result;
}

export function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

export function cmp(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1; // NULLS LAST
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

export const count = (list: Conv[], pred: (c: Conv) => boolean) => list.filter(pred).length;
export const ended = (c: Conv) => c.outcome !== null;
export const KNOWN = ['completed', 'transferred', 'hung_up', 'failed'];

export interface Filter {
  from?: Date;
  to?: Date;
  agents?: string[];
  channel?: string;
}

export function select(convs: Conv[], f: Filter = {}): Conv[] {
  return convs.filter(
    (c) =>
      (!f.from || c.startedAt.getTime() >= f.from.getTime()) &&
      (!f.to || c.startedAt.getTime() < f.to.getTime()) &&
      (!f.agents || f.agents.includes(c.agentId)) &&
      (!f.channel || c.channel === f.channel),
  );
}

export function expectedOutcomes(list: Conv[], tz: string): Expected[] {
  const groups = groupBy(list, (c) => JSON.stringify([local(c.startedAt, tz).day, c.agentId, c.channel]));
  return [...groups.entries()]
    .map(([key, g]) => {
      const [day, agentId, channel] = JSON.parse(key) as [string, string, string];
      const done = g.filter(ended);
      const durations = done.map((c) => c.duration!).filter((d) => d !== null);
      return {
        day,
        agent_id: agentId,
        agent_name: g[0]!.agentName,
        channel,
        conversations: g.length,
        ended: done.length,
        completed: count(g, (c) => c.outcome === 'completed'),
        transferred: count(g, (c) => c.outcome === 'transferred'),
        hung_up: count(g, (c) => c.outcome === 'hung_up'),
        failed: count(g, (c) => c.outcome === 'failed'),
        other: count(g, (c) => c.outcome !== null && !KNOWN.includes(c.outcome)),
        in_progress: count(g, (c) => c.outcome === null),
        completion_rate: ratio(count(g, (c) => c.outcome === 'completed'), done.length),
        transfer_rate: ratio(count(g, (c) => c.outcome === 'transferred'), done.length),
        hang_up_rate: ratio(count(g, (c) => c.outcome === 'hung_up'), done.length),
        avg_duration_sec: mean(durations),
        median_duration_sec: quantile(durations, 0.5),
      } satisfies Expected;
    })
    .sort((a, b) => cmp(a.day, b.day) || cmp(a.agent_id, b.agent_id) || cmp(a.channel, b.channel));
}

export function expectedLastNodeReport(list: Conv[], outcome: string, countName: string, rateName: string): Expected[] {
  const hits = list.filter((c) => c.outcome === outcome);
  const perAgent = groupBy(hits, (c) => c.agentId);
  const rows: Expected[] = [];
  for (const [agentId, g] of perAgent) {
    const byNode = groupBy(g, (c) => JSON.stringify(c.lastNode));
    for (const [nodeJson, h] of byNode) {
      const node = JSON.parse(nodeJson) as string | null;
      const visited =
        node === null ? null : count(list, (c) => c.agentId === agentId && c.path.some((p) => p.node_key === node));
      rows.push({
        agent_id: agentId,
        agent_name: g[0]!.agentName,
        node_key: node,
        [countName]: h.length,
        share: h.length / g.length,
        conversations_visited: visited,
        [rateName]: visited === null ? null : ratio(h.length, visited),
      });
    }
  }
  return rows.sort(
    (a, b) =>
      cmp(a.agent_id as string, b.agent_id as string) ||
      (b[countName] as number) - (a[countName] as number) ||
      cmp(a.node_key as string | null, b.node_key as string | null),
  );
}

export function expectedToolFailures(list: Conv[], toolNames: Map<string, string>): Expected[] {
  const calls = list.flatMap((c) => c.calls.map((k) => ({ ...k, conv: c })));
  return [...groupBy(calls, (k) => k.slug).entries()]
    .map(([slug, g]) => {
      const failures = g.filter((k) => k.status !== 'ok');
      const byStatus = [...groupBy(failures, (k) => k.status).entries()]
        .map(([status, f]) => ({ status, n: f.length }))
        .sort((a, b) => b.n - a.n || cmp(a.status, b.status));
      const perConv = [...groupBy(g, (k) => k.conv.id).values()].map((ks) => ({
        outcome: ks[0]!.conv.outcome,
        failed: ks.some((k) => k.status !== 'ok'),
      }));
      const mix = (failed: boolean, outcome: string) =>
        ratio(
          perConv.filter((p) => p.failed === failed && p.outcome === outcome).length,
          perConv.filter((p) => p.failed === failed && p.outcome !== null).length,
        );
      return {
        slug,
        tool_name: toolNames.get(g[0]!.tool_id) ?? null,
        calls: g.length,
        failures: failures.length,
        failure_rate: failures.length / g.length,
        failures_by_status: byStatus.length === 0 ? null : byStatus.map((s) => `${s.status}:${s.n}`).join('; '),
        conversations_calling: perConv.length,
        conversations_affected: perConv.filter((p) => p.failed).length,
        completion_rate_with_failure: mix(true, 'completed'),
        completion_rate_without_failure: mix(false, 'completed'),
        transfer_rate_with_failure: mix(true, 'transferred'),
        transfer_rate_without_failure: mix(false, 'transferred'),
        hang_up_rate_with_failure: mix(true, 'hung_up'),
        hang_up_rate_without_failure: mix(false, 'hung_up'),
      } satisfies Expected;
    })
    .sort((a, b) => b.failures - a.failures || cmp(a.slug, b.slug));
}

export function expectedHourly(list: Conv[], tz: string): Expected[] {
  const names = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
  const rows: Expected[] = [];
  for (let d = 1; d <= 7; d++) {
    for (let h = 0; h < 24; h++) {
      const g = list.filter((c) => {
        const l = local(c.startedAt, tz);
        return l.isoDow === d && l.hour === h;
      }); // local() is memoised
      const done = count(g, ended);
      const transferred = count(g, (c) => c.outcome === 'transferred');
      const hungUp = count(g, (c) => c.outcome === 'hung_up');
      rows.push({
        day_of_week: d,
        day_name: names[d - 1]!,
        hour: h,
        conversations: g.length,
        ended: done,
        transferred,
        transfer_rate: ratio(transferred, done),
        hung_up: hungUp,
        hang_up_rate: ratio(hungUp, done),
      });
    }
  }
  return rows;
}

export function expectedConversationList(list: Conv[], raw = false): Expected[] {
  const text = (s: string | null) => (s === null || raw ? s : neutralise(s));
  return [...list]
    .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || cmp(a.id, b.id))
    .map((c) => ({
      id: c.id,
      started_at: isoZ(c.startedAt),
      ended_at: isoZ(c.endedAt),
      agent_id: c.agentId,
      agent_name: text(c.agentName),
      channel: c.channel,
      direction: c.direction,
      outcome: c.outcome,
      duration_sec: c.duration,
      message_count: c.messages,
      last_node: c.lastNode,
      node_visits: c.path.length,
      tool_calls: c.calls.length,
      failed_tool_calls: c.calls.filter((k) => k.status !== 'ok').length,
      detail_status: c.detailStatus,
      deleted_at: isoZ(c.deletedAt),
      summary: text(c.summary),
    }));
}
