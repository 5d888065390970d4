// Long conversations for the real-data mode: the generated transcript continued to thousands of
// turns (speakers alternating, times increasing, node keys from the agent's workflow) with tool
// calls carrying large JSON payloads. Nothing is kept: the list entry recomputes only the
// timing, and a detail rebuilds the whole continuation on every request.

import type { AgentDetail, ConversationDetail, ConversationSummary, NodePathEntry, Tool, ToolCallEntry, TranscriptEntry } from '../../api/types.js';
import { formatTs } from '../dataset/dataset-format.js';
import * as P from '../dataset/phrases.js';
import { Rng, hashSeed } from '../random.js';

export interface LongSpec {
  /** transcript length to reach (a longer generated transcript is kept as it is) */
  turns: number;
  /** make the whole detail body about this many bytes; null: payloads of a few KB each */
  payloadBytes: number | null;
}

/** When the added turns happen and where the conversation now ends. */
export interface LongTiming {
  /** instants (ms) of the added turns, non-decreasing, after the generated end */
  turnMs: Float64Array;
  endMs: number;
  durationSec: number;
  messageCount: number;
}

/** The continuation's tool calls, whose payloads are filled once the rest of the body is known. */
export interface LongBuild {
  calls: ToolCallEntry[];
  /** [input, output] bytes of each call when no payloadBytes was asked for */
  defaultSizes: [number, number][];
}

/** Minutes east of UTC of a generated timestamp (`Z` or `±hh:mm`). */
export function tzOf(ts: string): number {
  const m = /([+-])(\d\d):(\d\d)$/.exec(ts);
  if (!m) return 0;
  const min = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -min : min;
}

/**
 * The timing of the continuation of the finished conversation `s` (as generated). It starts
 * after the generated end; when it would run past `boundMs` (the end of the history) it is
 * squeezed in, down to 10 ms a turn, so a long conversation does not end in the future.
 */
export function longTiming(seed: number, idx: number, s: ConversationSummary, startMs: number, spec: LongSpec, boundMs: number): LongTiming {
  const extra = Math.max(0, spec.turns - s.message_count);
  const origEndMs = Date.parse(s.ended_at!);
  const rng = new Rng(hashSeed(seed, idx, 0x10a9));
  const voice = s.channel === 'voice';
  const turnMs = new Float64Array(extra);
  let t = 0;
  for (let k = 0; k < extra; k++) {
    t += (voice ? rng.int(2, 9) : rng.int(1, 20)) * 1000;
    turnMs[k] = t;
  }
  const natural = t + rng.int(1, 3) * 1000;
  if (extra === 0) return { turnMs, endMs: origEndMs, durationSec: s.duration_sec!, messageCount: s.message_count };
  const room = Math.max(boundMs - origEndMs, extra * 10);
  const scale = natural > room ? room / natural : 1;
  for (let k = 0; k < extra; k++) turnMs[k] = origEndMs + Math.floor(turnMs[k]! * scale);
  const durationSec = Math.max(s.duration_sec!, Math.ceil((origEndMs + Math.floor(natural * scale) - startMs) / 1000));
  return { turnMs, endMs: startMs + durationSec * 1000, durationSec, messageCount: s.message_count + extra };
}

/** Lines without placeholders, so they need no facts of the conversation. */
const CALLER_LINES = [...P.FAQ_QUESTIONS, ...P.CALLER_FILLERS].filter((l) => !l.includes('{'));
const AGENT_LINES = [...P.FAQ_ANSWERS, ...P.AGENT_ASK, ...P.AGENT_ACK].filter((l) => !l.includes('{'));

interface NodeChoice {
  key: string;
  tools: Tool[];
}

/** The nodes a long conversation keeps circling through: the agent's talking and tool nodes. */
function nodeChoices(agent: AgentDetail | undefined, tools: readonly Tool[], visited: readonly string[]): NodeChoice[] {
  const out: NodeChoice[] = [];
  const nodes = agent?.workflow?.nodes ?? {};
  for (const [key, node] of Object.entries(nodes)) {
    const n = node as { type?: unknown; tool_ids?: unknown };
    if (n.type !== 'conversation' && n.type !== 'knowledge' && n.type !== 'tool') continue;
    const ids = Array.isArray(n.tool_ids) ? n.tool_ids : [];
    out.push({ key, tools: tools.filter((t) => ids.includes(t.id)) });
  }
  if (out.length === 0) for (const key of new Set(visited)) out.push({ key, tools: [] });
  return out;
}

/**
 * Appends the continuation to a detail as the dataset generated it (before its timestamps are
 * rendered) and sets its counts and end. The tool calls get empty payloads for now.
 */
export function appendLong(
  seed: number,
  idx: number,
  d: ConversationDetail,
  timing: LongTiming,
  agent: AgentDetail | undefined,
  tools: readonly Tool[],
): LongBuild {
  const rng = new Rng(hashSeed(seed, idx, 0x10aa));
  const tz = tzOf(d.started_at);
  const transcript: TranscriptEntry[] = d.transcript ?? [];
  const nodePath: NodePathEntry[] = d.node_path;
  const toolCalls: ToolCallEntry[] = d.tool_calls;
  const choices = nodeChoices(agent, tools, nodePath.map((e) => e.node_key));
  const build: LongBuild = { calls: [], defaultSizes: [] };
  const addCall = (at: string, node: string, tool: { id: string; slug: string }): void => {
    const call: ToolCallEntry = {
      at,
      tool_id: tool.id,
      slug: tool.slug,
      node_key: node,
      status: rng.chance(0.05) ? 'error' : 'ok',
      input_redacted: {},
      output_redacted: {},
    };
    toolCalls.push(call);
    build.calls.push(call);
    build.defaultSizes.push([rng.int(200, 2_000), rng.int(1_000, 8_000)]);
  };

  let speaker = transcript.length > 0 && transcript[transcript.length - 1]!.speaker === 'caller' ? 'agent' : 'caller';
  let node = nodePath.length > 0 ? nodePath[nodePath.length - 1]!.node_key : 'greeting';
  let left = 0;
  let pendingTool: Tool | null = null;
  const extra = timing.turnMs.length;
  for (let k = 0; k < extra; k++) {
    const at = formatTs(timing.turnMs[k]!, tz);
    if (left === 0 && choices.length > 0) {
      const choice = rng.pick(choices);
      node = choice.key;
      left = rng.int(2, 12);
      pendingTool = choice.tools.length > 0 ? rng.pick(choice.tools) : null;
      nodePath.push({ at, node_key: node });
    }
    left = Math.max(0, left - 1);
    transcript.push({ at, speaker, text: rng.pick(speaker === 'caller' ? CALLER_LINES : AGENT_LINES), node_key: node });
    // The tool runs once the caller has said what they need.
    if (pendingTool && speaker === 'caller') {
      addCall(at, node, pendingTool);
      pendingTool = null;
    }
    speaker = speaker === 'caller' ? 'agent' : 'caller';
  }
  // A long conversation always carries at least one large tool call.
  if (build.calls.length === 0) {
    const own = toolCalls[0];
    const tool = choices.flatMap((c) => c.tools)[0] ?? (own ? { id: own.tool_id, slug: own.slug } : tools[0]);
    if (tool) addCall(formatTs(extra > 0 ? timing.turnMs[extra - 1]! : Date.parse(d.ended_at!), tz), node, tool);
  }
  d.transcript = transcript;
  d.message_count = timing.messageCount;
  d.duration_sec = timing.durationSec;
  d.ended_at = formatTs(timing.endMs, tz);
  return build;
}

const WORDS = ['order', 'parcel', 'return', 'invoice', 'refund', 'delivery', 'address', 'size', 'colour', 'store', 'warranty', 'exchange', 'voucher', 'tracking', 'customs', 'payment'];
const SNIPPETS = [
  'Orders placed before 2 pm ship the same working day from the warehouse in Basel.',
  'Returns are free within 30 days; the label is sent by email once the request is approved.',
  'Refunds reach the original payment method within 5 to 10 working days after the return arrives.',
  'The carrier tries to deliver twice, then the parcel waits at the nearest pickup point for 7 days.',
  'Invoices are payable within 14 days; a reminder is sent after the due date, without a fee.',
  'Store opening hours: Monday to Friday 9:00 to 18:30, Saturday 9:00 to 14:00, closed on Sunday.',
];

/** A JSON object of about `bytes` bytes (ASCII only, so characters are bytes). */
export function bigPayload(rng: Rng, bytes: number, role: 'input' | 'output'): Record<string, unknown> {
  const list: unknown[] = [];
  const obj: Record<string, unknown> =
    role === 'input'
      ? { request_id: `req_${rng.hex(8)}`, query: `${rng.pick(WORDS)} ${rng.pick(WORDS)}`, context: list }
      : { results: list, next_cursor: null, took_ms: rng.int(3, 900) };
  let size = JSON.stringify(obj).length;
  for (;;) {
    const entry =
      role === 'input'
        ? { turn: list.length + 1, speaker: rng.chance(0.5) ? 'caller' : 'agent', text: rng.pick(SNIPPETS) }
        : { id: `doc_${rng.hex(6)}`, title: `${rng.pick(WORDS)} ${rng.pick(WORDS)}`, snippet: rng.pick(SNIPPETS), score: rng.int(1, 999) / 1000 };
    const len = JSON.stringify(entry).length + (list.length > 0 ? 1 : 0);
    if (size + len > bytes - 16) break;
    list.push(entry);
    size += len;
  }
  const pad = bytes - size - ',"padding":""'.length;
  if (pad > 0) obj.padding = 'z'.repeat(pad);
  return obj;
}

/**
 * Fills the continuation's tool calls: the default sizes, or, with `payloadBytes`, sizes that
 * bring a body of `bodyBytes` (measured with the payloads empty) to about `payloadBytes`.
 */
export function fillLongPayloads(seed: number, idx: number, build: LongBuild, payloadBytes: number | null, bodyBytes: number): void {
  const rng = new Rng(hashSeed(seed, idx, 0x10ab));
  const n = build.calls.length;
  if (n === 0) return;
  // Each call's empty payloads `{}` already count 4 bytes of the measured body.
  const share = payloadBytes === null ? 0 : Math.floor(Math.max(0, payloadBytes - bodyBytes) / n) + 4;
  build.calls.forEach((call, i) => {
    const [inBytes, outBytes] = payloadBytes === null ? build.defaultSizes[i]! : [Math.floor(share / 4), share - Math.floor(share / 4)];
    call.input_redacted = bigPayload(rng, inBytes, 'input');
    call.output_redacted = bigPayload(rng, outBytes, 'output');
  });
}
