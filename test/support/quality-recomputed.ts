// The quality reports (abandonment, response_times, talk_share, loops, handoff_precursors,
// repeat_contacts) computed again in TypeScript from the simulator's own conversations, without
// their SQL: the expected rows quality-reports.test.ts compares with what the runner writes.

import type { ConversationDetail, ConversationSummary } from '../../src/api/types.js';
import { cmp, groupBy, isoZ, local, quantile, ratio, type Expected } from './reports-recomputed.js';

/** One conversation as the quality reports see it (every detail of the fixture is stored). */
export interface QConv {
  id: string;
  agentId: string;
  agentName: string | null;
  channel: string;
  startedAt: Date;
  duration: number | null;
  outcome: string | null;
  sessionRef: string | null;
  path: string[];
  calls: { at: Date; failed: boolean }[];
  turns: { at: Date; speaker: string; text: string; node: string }[];
}

export function qconv(s: ConversationSummary, d: ConversationDetail, agentNames: Map<string, string>): QConv {
  return {
    id: s.id,
    agentId: d.agent_id,
    agentName: agentNames.get(d.agent_id) ?? null,
    channel: d.channel,
    startedAt: new Date(d.started_at),
    duration: d.duration_sec,
    outcome: d.outcome,
    sessionRef: d.session_ref,
    path: d.node_path.map((p) => p.node_key),
    calls: d.tool_calls.map((k) => ({ at: new Date(k.at), failed: k.status !== 'ok' })),
    turns: (d.transcript ?? []).map((t) => ({ at: new Date(t.at), speaker: t.speaker, text: t.text, node: t.node_key })),
  };
}

const agentOf = (c: QConv) => ({ agent_id: c.agentId, agent_name: c.agentName });
const byAgent = (a: Expected, b: Expected) => cmp(a.agent_id as string, b.agent_id as string);

// ------------------------------------------------------------------------------------------
// abandonment

export function expectedAbandonment(list: QConv[], tz: string): Expected[] {
  const ends = new Map<string, Set<string>>();
  for (const [agentId, g] of groupBy(list, (c) => c.agentId)) {
    const left = new Set(g.flatMap((c) => c.path.slice(0, -1)));
    const completedLast = g.filter((c) => c.outcome === 'completed' && c.path.length > 0).map((c) => c.path.at(-1)!);
    ends.set(agentId, new Set(completedLast.filter((n) => !left.has(n))));
  }
  const done = list.filter((c) => c.outcome !== null);
  const rows = [...groupBy(done, (c) => JSON.stringify([local(c.startedAt, tz).day, c.agentId])).values()].map((g) => {
    const atEnd = (c: QConv) => c.path.length > 0 && ends.get(c.agentId)!.has(c.path.at(-1)!);
    const n = (pred: (c: QConv) => boolean) => g.filter(pred).length;
    const completedAtEnd = n((c) => c.outcome === 'completed' && atEnd(c));
    const completedElsewhere = n((c) => c.outcome === 'completed' && !atEnd(c));
    const hungUpAtEnd = n((c) => c.outcome === 'hung_up' && atEnd(c));
    const contained = completedAtEnd + completedElsewhere + hungUpAtEnd;
    const transferred = n((c) => c.outcome === 'transferred');
    const abandoned = n((c) => c.outcome === 'hung_up' && !atEnd(c));
    const failed = n((c) => c.outcome === 'failed');
    return {
      day: local(g[0]!.startedAt, tz).day,
      ...agentOf(g[0]!),
      ended: g.length,
      completed_at_end: completedAtEnd,
      completed_elsewhere: completedElsewhere,
      hung_up_at_end: hungUpAtEnd,
      contained,
      transferred,
      abandoned,
      failed,
      other: n((c) => !['completed', 'transferred', 'hung_up', 'failed'].includes(c.outcome!)),
      containment_rate: ratio(contained, g.length),
      transfer_rate: ratio(transferred, g.length),
      abandonment_rate: ratio(abandoned, g.length),
      failure_rate: ratio(failed, g.length),
    } satisfies Expected;
  });
  return rows.sort((a, b) => cmp(a.day, b.day) || byAgent(a, b));
}

// ------------------------------------------------------------------------------------------
// response_times

export interface Answer {
  conv: QConv;
  /** index of the agent turn */
  index: number;
  node: string;
  seconds: number;
}

/** Every agent turn right after a caller turn, timed from the caller turn's start. */
export function answersOf(c: QConv): Answer[] {
  const out: Answer[] = [];
  for (let i = 1; i < c.turns.length; i++) {
    const t = c.turns[i]!;
    const before = c.turns[i - 1]!;
    if (t.speaker === 'agent' && before.speaker === 'caller') {
      out.push({ conv: c, index: i, node: t.node, seconds: (t.at.getTime() - before.at.getTime()) / 1000 });
    }
  }
  return out;
}

export function expectedResponseTimes(list: QConv[], slowSeconds: number): Expected[] {
  const answers = list.flatMap(answersOf);
  const row = (g: Answer[], level: string, node: string | null): Expected => {
    const s = g.map((a) => a.seconds);
    const slow = s.filter((x) => x > slowSeconds).length;
    return {
      ...agentOf(g[0]!.conv),
      channel: g[0]!.conv.channel,
      level,
      node_key: node,
      answers: g.length,
      p50_sec: quantile(s, 0.5),
      p90_sec: quantile(s, 0.9),
      max_sec: Math.max(...s),
      slow_answers: slow,
      slow_share: ratio(slow, g.length),
    };
  };
  const rows: Expected[] = [];
  for (const g of groupBy(answers, (a) => JSON.stringify([a.conv.agentId, a.conv.channel])).values()) {
    rows.push(row(g, 'agent', null));
    for (const [node, h] of groupBy(g, (a) => a.node)) rows.push(row(h, 'node', node));
  }
  return rows.sort(
    (a, b) => byAgent(a, b) || cmp(a.channel as string, b.channel as string) || cmp(a.level as string, b.level as string) || cmp(a.node_key as string | null, b.node_key as string | null),
  );
}

// ------------------------------------------------------------------------------------------
// talk_share

/** Runs of characters other than space, tab, line feed, carriage return and form feed. */
export function words(text: string): number {
  return (text.match(/[^ \t\n\r\f]+/g) ?? []).length;
}

export function longestAgentRun(c: QConv): number {
  let best = 0;
  let run = 0;
  for (const t of c.turns) {
    if (t.speaker === 'agent') best = Math.max(best, ++run);
    else run = 0;
  }
  return best;
}

export function expectedTalkShare(list: QConv[]): Expected[] {
  const talked = list.filter((c) => c.outcome !== null && c.turns.some((t) => t.speaker === 'agent' || t.speaker === 'caller'));
  const rows = [...groupBy(talked, (c) => JSON.stringify([c.agentId, c.channel])).values()].map((g) => {
    const per = g.map((c) => {
      const agentWords = c.turns.filter((t) => t.speaker === 'agent').reduce((s, t) => s + words(t.text), 0);
      const callerWords = c.turns.filter((t) => t.speaker === 'caller').reduce((s, t) => s + words(t.text), 0);
      const callerTurns = c.turns.filter((t) => t.speaker === 'caller').length;
      return {
        agentTurns: c.turns.filter((t) => t.speaker === 'agent').length,
        callerTurns,
        agentWords,
        callerWords,
        share: ratio(agentWords, agentWords + callerWords),
        run: longestAgentRun(c),
        duration: c.duration ?? 0,
        pace: c.duration !== null && c.duration > 0 ? callerTurns / (c.duration / 60) : null,
      };
    });
    const sum = (f: (p: (typeof per)[number]) => number) => per.reduce((s, p) => s + f(p), 0);
    const timed = per.filter((p) => p.duration > 0);
    return {
      ...agentOf(g[0]!),
      channel: g[0]!.channel,
      conversations: g.length,
      agent_turns: sum((p) => p.agentTurns),
      caller_turns: sum((p) => p.callerTurns),
      agent_words: sum((p) => p.agentWords),
      caller_words: sum((p) => p.callerWords),
      agent_word_share: ratio(sum((p) => p.agentWords), sum((p) => p.agentWords + p.callerWords)),
      median_agent_word_share: quantile(per.flatMap((p) => (p.share === null ? [] : [p.share])), 0.5),
      longest_agent_run: Math.max(...per.map((p) => p.run)),
      median_longest_agent_run: quantile(per.map((p) => p.run), 0.5),
      caller_turns_per_minute: ratio(timed.reduce((s, p) => s + p.callerTurns, 0), timed.reduce((s, p) => s + p.duration, 0) / 60),
      median_caller_turns_per_minute: quantile(timed.map((p) => p.pace!), 0.5),
    } satisfies Expected;
  });
  return rows.sort((a, b) => byAgent(a, b) || cmp(a.channel, b.channel));
}

// ------------------------------------------------------------------------------------------
// loops

/** How often the conversation entered each node. */
export function entries(c: QConv): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of c.path) m.set(n, (m.get(n) ?? 0) + 1);
  return m;
}

/** The indexes of agent turns whose text an earlier agent turn said already. */
export function repeatedTurns(c: QConv): Set<number> {
  const said = new Set<string>();
  const out = new Set<number>();
  c.turns.forEach((t, i) => {
    if (t.speaker !== 'agent') return;
    if (said.has(t.text)) out.add(i);
    said.add(t.text);
  });
  return out;
}

export function expectedLoops(list: QConv[], loopVisits: number): Expected[] {
  const base = list.filter((c) => c.outcome !== null && c.path.length > 0);
  const rows: Expected[] = [];
  for (const g of groupBy(base, (c) => c.agentId).values()) {
    const flagged = new Map<string, { kind: string; node: string; convs: QConv[]; max: number | null }>();
    const flag = (kind: string, node: string, c: QConv, n: number | null) => {
      const key = JSON.stringify([kind, node]);
      const f = flagged.get(key) ?? { kind, node, convs: [], max: null };
      if (!f.convs.includes(c)) f.convs.push(c);
      if (n !== null) f.max = Math.max(f.max ?? 0, n);
      flagged.set(key, f);
    };
    for (const c of g) {
      for (const [node, n] of entries(c)) if (n > loopVisits) flag('revisit', node, c, n);
      for (const i of repeatedTurns(c)) flag('repeat', c.turns[i]!.node, c, null);
    }
    for (const f of flagged.values()) {
      const rest = g.filter((c) => !f.convs.includes(c));
      const rate = (convs: QConv[], outcome: string) => ratio(convs.filter((c) => c.outcome === outcome).length, convs.length);
      rows.push({
        ...agentOf(g[0]!),
        node_key: f.node,
        kind: f.kind,
        conversations: f.convs.length,
        agent_conversations: g.length,
        share: f.convs.length / g.length,
        max_entries: f.max,
        completion_rate: rate(f.convs, 'completed'),
        completion_rate_rest: rate(rest, 'completed'),
        transfer_rate: rate(f.convs, 'transferred'),
        transfer_rate_rest: rate(rest, 'transferred'),
        hang_up_rate: rate(f.convs, 'hung_up'),
        hang_up_rate_rest: rate(rest, 'hung_up'),
      });
    }
  }
  return rows.sort((a, b) => byAgent(a, b) || -cmp(a.kind as string, b.kind as string) || cmp(a.node_key as string, b.node_key as string));
}

// ------------------------------------------------------------------------------------------
// handoff_precursors

export interface PrecursorParams {
  lastTurns: number;
  slowSeconds: number;
  loopVisits: number;
}

/** The events in a conversation's last turns, as `event` or `node:KEY`. */
export function endEvents(c: QConv, p: PrecursorParams): Set<string> {
  const first = Math.max(0, c.turns.length - p.lastTurns);
  const start = Math.min(...c.turns.slice(first).map((t) => t.at.getTime()));
  const events = new Set<string>();
  if (c.calls.some((k) => k.failed && k.at.getTime() >= start)) events.add('failed_tool');
  if (answersOf(c).some((a) => a.index >= first && a.seconds > p.slowSeconds)) events.add('slow_answer');
  const entered = entries(c);
  const repeated = repeatedTurns(c);
  for (let i = first; i < c.turns.length; i++) {
    const node = c.turns[i]!.node;
    events.add(`node:${node}`);
    if ((entered.get(node) ?? 0) > p.loopVisits) events.add('loop');
    if (repeated.has(i)) events.add('repeat');
  }
  return events;
}

export function expectedPrecursors(list: QConv[], p: PrecursorParams): Expected[] {
  const ends = list.filter((c) => ['completed', 'transferred', 'hung_up'].includes(c.outcome ?? '') && c.turns.length > 0);
  const rows: Expected[] = [];
  for (const g of groupBy(ends, (c) => c.agentId).values()) {
    const withEvents = g.map((c) => ({ c, events: endEvents(c, p) }));
    const completed = withEvents.filter((x) => x.c.outcome === 'completed');
    for (const outcome of ['transferred', 'hung_up']) {
      const these = withEvents.filter((x) => x.c.outcome === outcome);
      const seen = [...new Set(these.flatMap((x) => [...x.events]))];
      for (const key of seen) {
        const having = these.filter((x) => x.events.has(key)).map((x) => x.c);
        const withIt = having.length;
        const latest = [...having].sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || cmp(a.id, b.id))[0]!;
        const completedWithIt = completed.filter((x) => x.events.has(key)).length;
        const share = withIt / these.length;
        const completedShare = ratio(completedWithIt, completed.length);
        rows.push({
          ...agentOf(g[0]!),
          outcome,
          event: key.startsWith('node:') ? 'node' : key,
          node_key: key.startsWith('node:') ? key.slice(5) : null,
          conversations: these.length,
          with_event: withIt,
          share,
          completed: completed.length,
          completed_with_event: completedWithIt,
          completed_share: completedShare,
          lift: completedShare === null || completedShare === 0 ? null : share / completedShare,
          latest_conversation_id: latest.id,
          latest_started_at: isoZ(latest.startedAt),
        });
      }
    }
  }
  return rows.sort(
    (a, b) =>
      byAgent(a, b) ||
      -cmp(a.outcome as string, b.outcome as string) ||
      cmp(a.event as string, b.event as string) ||
      cmp(a.node_key as string | null, b.node_key as string | null),
  );
}

// ------------------------------------------------------------------------------------------
// repeat_contacts

const DAY_MS = 86_400_000;

/** `all`: every conversation stored, where the returns are looked for. */
export function expectedRepeatContacts(list: QConv[], all: QConv[]): Expected[] {
  const firsts = list.filter((c) => c.channel === 'chat' && c.sessionRef !== null);
  const bySession = groupBy(all.filter((c) => c.sessionRef !== null), (c) => c.sessionRef!);
  const rows = [...groupBy(firsts, (c) => c.agentId).values()].map((g) => {
    const per = g.map((c) => {
      const t = c.startedAt.getTime();
      const back = bySession.get(c.sessionRef!)!.filter((r) => r.startedAt.getTime() > t && r.startedAt.getTime() <= t + DAY_MS);
      const first = Math.min(...back.map((r) => r.startedAt.getTime()));
      return {
        c,
        back: back.length > 0,
        same: back.some((r) => r.agentId === c.agentId),
        hours: back.length > 0 ? (first - t) / 3_600_000 : null,
      };
    });
    const n = (pred: (x: (typeof per)[number]) => boolean) => per.filter(pred).length;
    const completed = (x: (typeof per)[number]) => x.c.outcome === 'completed';
    const notCompleted = (x: (typeof per)[number]) => x.c.outcome !== null && x.c.outcome !== 'completed';
    return {
      ...agentOf(g[0]!),
      chat_conversations: g.length,
      came_back: n((x) => x.back),
      came_back_rate: ratio(n((x) => x.back), g.length),
      came_back_to_same_agent: n((x) => x.back && x.same),
      median_hours_to_return: quantile(per.flatMap((x) => (x.hours === null ? [] : [x.hours])), 0.5),
      completed: n(completed),
      came_back_after_completed: n((x) => completed(x) && x.back),
      came_back_rate_completed: ratio(n((x) => completed(x) && x.back), n(completed)),
      not_completed: n(notCompleted),
      came_back_after_not_completed: n((x) => notCompleted(x) && x.back),
      came_back_rate_not_completed: ratio(n((x) => notCompleted(x) && x.back), n(notCompleted)),
    } satisfies Expected;
  });
  return rows.sort(byAgent);
}
