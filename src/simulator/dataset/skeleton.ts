// A conversation's skeleton: everything about it except its words, drawn from its own PRNG
// stream (seed, record index): id, agent, channel, outcome, the path through the agent's
// workflow, and the timed events (messages, tool calls with their statuses, node entries).
// The summary and the detail are both assembled from it (conversation.ts), so they agree:
// completed ends at `end`, transferred at a node of type `transfer`, hung_up stops before any
// terminal node, failed stops at a tool node whose last call failed, or mid-flow.
// Planted for the quality reports: slow answers at knowledge nodes, Website Chat's loops and the
// failed lookup before its transfers, widget sessions that come back (Order Support's repeated
// question is in conversation-text.ts).

import type { PlantedIncidents } from './incidents.js';
import { PAGE_PATHS } from './phrases.js';
import { Rng, hashSeed } from '../random.js';
import type { AgentRt } from './space-setup.js';
import { walk, type ToolRt } from './workflow.js';

export const MSG = 0;
const TOOL = 1;
export const NODE = 2;

/** One timed event, `t` seconds after the start: a message, a tool call or a node entry. */
export interface Ev {
  t: number;
  kind: 0 | 1 | 2;
  node: string;
  speaker?: 'agent' | 'caller';
  purpose?: string;
  tool?: ToolRt;
  status?: string;
}

export interface Skeleton {
  id: string;
  agent: AgentRt;
  channel: string;
  direction: string;
  sessionRef: string | null;
  pageUrl: string | null;
  tzMin: number;
  outcome: string;
  path: string[];
  /** empty unless the skeleton was built with collect = true */
  events: Ev[];
  msgCount: number;
  /** natural end, seconds after start */
  endSec: number;
}

/** What skeletons are drawn from: the dataset's seed and the space's agents. */
export interface SkeletonSource {
  seed: number;
  exoticValues: boolean;
  domain: string;
  pausedAtMs: number;
  eligibleBefore: readonly (readonly [AgentRt, number])[];
  eligibleAfter: readonly (readonly [AgentRt, number])[];
  incidents: PlantedIncidents;
}

/** The cycle Website Chat goes round when it loops. */
const LOOP = ['route_intent', 'faq', 'anything_else'] as const;

/** Widget conversations that continue a session, and how many sessions a window holds. */
const RETURNING_SHARE = 0.25;
const SESSION_SLOTS = 3;
const SESSION_WINDOW_MS = 36 * 3_600_000;

const FAIL_STATUSES: readonly (readonly [string, number])[] = [
  ['error', 0.45],
  ['timeout', 0.35],
  ['http_500', 0.2],
];

/** collect: keep the event list (needed for details and open conversations), else only counts. */
export function buildSkeleton(src: SkeletonSource, idx: number, startMs: number, collect = true): Skeleton {
  const rng = new Rng(hashSeed(src.seed, idx, 0x5ce1));
  const id = rng.uuid();
  const tzMin = src.exoticValues && rng.chance(0.02) ? rng.pick([120, -300, 330]) : 0;
  const eligible = startMs < src.pausedAtMs ? src.eligibleBefore : src.eligibleAfter;
  const agent = rng.weighted(eligible);
  const channel = rng.chance(agent.tpl.chatShare) ? 'chat' : 'voice';
  const outbound = src.exoticValues && channel === 'voice' && rng.chance(0.015);
  const direction = outbound ? 'outbound' : 'inbound';
  let sessionRef = channel === 'chat' ? `ws_${rng.hex(10)}` : null;
  // Planted draws come from a stream of their own, so the skeleton's other draws stay as they were.
  const plant = new Rng(hashSeed(src.seed, idx, 0x91a7));
  // A share of widget visitors come back in the same browser session: they share one of a few
  // session_refs per 36-hour window, so some return within 24 hours and some later.
  if (sessionRef !== null && plant.chance(RETURNING_SHARE)) {
    const window = Math.floor(startMs / SESSION_WINDOW_MS);
    sessionRef = `ws_${new Rng(hashSeed(src.seed, window, plant.int(0, SESSION_SLOTS - 1), 0x5e55)).hex(10)}`;
  }
  const pageUrl = channel === 'chat' ? `https://www.${src.domain}${rng.pick(PAGE_PATHS)}` : null;

  const wf = agent.wf;
  let outcome = rng.weighted([
    ['completed', 0.66],
    ['transferred', 0.15],
    ['hung_up', 0.12],
    ['failed', 0.07],
  ] as const) as string;
  const jump = src.incidents.transferJump;
  if (jump && agent.detail.id === jump.agentId && startMs >= jump.fromMs && new Rng(hashSeed(src.seed, idx, 0x1c1d)).chance(jump.rate)) {
    outcome = 'transferred';
  }
  let path: string[];
  const voicemail = outbound && rng.chance(0.6);
  if (voicemail) {
    outcome = 'voicemail';
    path = [wf.start];
  } else {
    if (outcome === 'transferred' && !wf.distTransfer.has(wf.start)) outcome = 'completed';
    if (outcome === 'failed' && !wf.distTool.has(wf.start)) outcome = 'hung_up';
    const mode = outcome === 'completed' ? 'end' : outcome === 'transferred' ? 'transfer' : outcome === 'failed' ? 'tool' : 'wander';
    // A third of voice hang-ups happen during the greeting: the early hang-ups reports look for.
    path = outcome === 'hung_up' && channel === 'voice' && rng.chance(0.35) ? [wf.start] : walk(wf, mode, rng);
  }
  // Website Chat: a lookup fails just before most of its transfers (the hand-off precursor), and
  // it goes round route_intent → faq → anything_else, mostly in conversations that end badly.
  let failBeforeTransfer = false;
  if (agent.tpl.key === 'web_chat' && !voicemail) {
    const toolIntents = agent.tpl.intents.filter((k) => wf.type.get(k) === 'tool');
    if (outcome === 'transferred' && toolIntents.length > 0 && plant.chance(0.7)) {
      path = [wf.start, 'route_intent', plant.pick(toolIntents), 'transfer_to_human'];
      failBeforeTransfer = true;
    }
    if (path[1] === 'route_intent' && path.length > 2 && plant.chance(outcome === 'completed' ? 0.1 : 0.45)) {
      path = [path[0]!, ...LOOP, ...LOOP, ...path.slice(1)];
    }
  }

  // ~1% long conversations: one conversation/knowledge visit gets 60–160 exchanges.
  let longVisit = -1;
  if (rng.chance(0.01)) {
    const candidates = path
      .map((key, i) => [key, i] as const)
      .filter(([key]) => {
        const t = wf.type.get(key);
        return t === 'knowledge' || t === 'conversation';
      });
    if (candidates.length > 0) longVisit = rng.pick(candidates)[1];
  }

  const voice = channel === 'voice';
  const events: Ev[] = [];
  let t = 0;
  let msgCount = 0;
  let node = wf.start;
  let previous: 'agent' | 'caller' | null = null;
  const msg = (speaker: 'agent' | 'caller', purpose: string): void => {
    // The agent's answer to a caller comes after a pause: long at knowledge nodes (the slow node
    // the response_times report finds), a second at most elsewhere.
    if (speaker === 'agent' && previous === 'caller') t += wf.type.get(node) === 'knowledge' ? plant.int(10, 18) : plant.int(0, 1);
    previous = speaker;
    msgCount++;
    if (collect) events.push({ t, kind: MSG, node, speaker, purpose });
    // voice: how long the turn is spoken; chat: the agent's line is read and answered (4–35 s),
    // the visitor's is answered at once
    t += voice ? (speaker === 'agent' ? rng.int(2, 9) : rng.int(1, 7)) : speaker === 'agent' ? rng.int(4, 35) : rng.int(1, 4);
  };
  const callTool = (rt: ToolRt, status: string): void => {
    t += rng.int(0, 1);
    if (collect) events.push({ t, kind: TOOL, node, tool: rt, status });
    t += status === 'timeout' ? rng.int(8, 10) : rng.int(1, 3);
  };
  const outage = src.incidents.toolOutage;
  const inOutage = (rt: ToolRt): boolean => {
    const at = startMs + t * 1000;
    return outage !== null && rt.tool.connection_id === outage.connectionId && at >= outage.fromMs && at < outage.toMs;
  };
  const normalStatus = (): string => {
    if (src.exoticValues && rng.chance(0.01)) return 'rate_limited';
    return rng.chance(0.06) ? rng.weighted(FAIL_STATUSES) : 'ok';
  };

  const last = path.length - 1;
  for (let i = 0; i <= last; i++) {
    node = path[i]!;
    const nextKey = path[i + 1];
    const type = wf.type.get(node);
    if (collect) events.push({ t, kind: NODE, node });
    const final = i === last;
    switch (type) {
      case 'greeting':
        msg('agent', 'greet');
        if (voicemail) {
          msg('agent', 'voicemail');
          break;
        }
        if (!final || rng.chance(0.5)) msg('caller', 'greet_reply');
        break;
      case 'conversation': {
        const n = i === longVisit ? rng.int(60, 160) : rng.int(1, 2);
        for (let k = 0; k < n; k++) {
          msg('agent', k === 0 && node === 'anything_else' ? 'anything_else' : 'ask');
          msg('caller', k === n - 1 && nextKey ? `intent:${nextKey}` : 'filler');
        }
        break;
      }
      case 'knowledge': {
        const n = i === longVisit ? rng.int(60, 160) : rng.int(1, 4);
        for (let k = 0; k < n; k++) {
          msg('caller', 'faq_q');
          msg('agent', 'faq_a');
        }
        break;
      }
      case 'tool': {
        const rts = wf.tools.get(node) ?? [];
        msg('caller', `provide:${node}`);
        const firstTool = rts[0];
        if (firstTool && firstTool.def.announce !== null) msg('agent', 'announce');
        const forcedFail = final && outcome === 'failed';
        const plantedFail = failBeforeTransfer && i === last - 1;
        const failAt = forcedFail ? rng.int(0, Math.max(0, rts.length - 1)) : plantedFail ? rts.length - 1 : -1;
        let failed = false;
        for (let k = 0; k < rts.length; k++) {
          const status = k === failAt ? rng.weighted(FAIL_STATUSES) : inOutage(rts[k]!) ? 'http_500' : normalStatus();
          callTool(rts[k]!, status);
          if (status !== 'ok') {
            msg('agent', 'fail');
            failed = true;
            break;
          }
          msg('agent', `ok:${rts[k]!.def.slug}`);
          if (k < rts.length - 1) msg('caller', 'filler');
        }
        if (!failed && !final && rng.chance(0.3)) {
          msg('caller', 'filler');
          msg('agent', 'ack');
        }
        break;
      }
      case 'transfer':
        msg('agent', 'transfer');
        break;
      case 'end':
        msg('agent', 'bye');
        if (rng.chance(0.6)) msg('caller', 'caller_bye');
        break;
      default:
        msg('agent', 'ask');
    }
    if (final && outcome === 'hung_up' && rng.chance(0.5)) msg('caller', 'hangup_last');
    if (final && outcome === 'failed' && wf.type.get(node) !== 'tool') msg('agent', 'fail');
  }
  const endSec = t + rng.int(0, 3);
  return { id, agent, channel, direction, sessionRef, pageUrl, tzMin, outcome, path, events, msgCount, endSec };
}
