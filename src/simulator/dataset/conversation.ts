// A conversation as the dataset keeps it (ConversationRecord: its index, id, start and state,
// and the summary) and how its summary and full detail are assembled from its skeleton.
// Only summaries stay in memory; a detail is rebuilt on every request from (seed, record
// index, started_at, open/cut/cap state). An open conversation shows its events up to cutMs;
// a finished one that would run past capMs is compressed into it, so message_count =
// transcript.length and duration_sec = ended_at - started_at always hold.

import type { ConversationDetail, ConversationSummary, NodePathEntry, ToolCallEntry, TranscriptEntry } from '../../api/types.js';
import { agentMemory, drawFacts, summaryText, transcriptLine } from './conversation-text.js';
import type { PlantedCaller } from './personal-data.js';
import { flat, formatTs } from './dataset-format.js';
import { Rng, hashSeed } from '../random.js';
import { MSG, NODE, type Skeleton } from './skeleton.js';
import { toolPayload } from './tool-payloads.js';

export interface ConversationRecord {
  readonly idx: number;
  readonly id: string;
  readonly startMs: number;
  /** still in progress: ended_at/outcome/duration_sec null, partial transcript */
  open: boolean;
  /** instant up to which the transcript was visible while open (startMs if never open) */
  cutMs: number;
  /** latest allowed ended_at; a longer natural conversation is compressed into it */
  capMs: number | null;
  summary: ConversationSummary;
}

/** Newest first: started_at descending, ties by id ascending. */
export function compareRecords(a: ConversationRecord, b: ConversationRecord): number {
  if (a.startMs !== b.startMs) return b.startMs - a.startMs;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** What assembling draws on besides the record and its skeleton. */
export interface ConversationSource {
  seed: number;
  company: string;
  spaceSlug: string;
  planted?: PlantedCaller;
}

/** The summary of a record, its strings flattened to stay in memory. */
export function assembleSummary(src: ConversationSource, rec: ConversationRecord, sk: Skeleton): ConversationSummary {
  return assemble(src, rec, sk, false);
}

/** The full detail of a record (all fields; the server strips confidential ones). */
export function assembleDetail(src: ConversationSource, rec: ConversationRecord, sk: Skeleton): ConversationDetail {
  return assemble(src, rec, sk, true) as ConversationDetail;
}

function assemble(src: ConversationSource, rec: ConversationRecord, sk: Skeleton, withText: boolean): ConversationSummary | ConversationDetail {
  const startMs = rec.startMs;
  let visible = sk.events;
  let map = (s: number): number => s;
  let endSec: number | null = null;
  if (rec.open) {
    let lastMsg = 0;
    for (const e of sk.events) if (e.kind === MSG) lastMsg = e.t;
    const cut = Math.min(Math.floor((rec.cutMs - startMs) / 1000), Math.max(0, lastMsg - 1));
    const cutSec = Math.max(0, cut);
    visible = sk.events.filter((e) => e.t <= cutSec);
  } else {
    const base = Math.max(0, Math.floor((rec.cutMs - startMs) / 1000));
    const cap = rec.capMs === null ? Infinity : Math.max(base, Math.floor((rec.capMs - startMs) / 1000));
    if (sk.endSec > cap) {
      const span = sk.endSec - base;
      const room = cap - base;
      map = (s) => (s <= base ? s : base + Math.floor(((s - base) * room) / span));
    }
    endSec = map(sk.endSec);
  }
  let messageCount = sk.msgCount;
  if (rec.open) {
    if (sk.events.length === 0 && sk.msgCount > 0) throw new Error('simulator: open conversation needs a collected skeleton');
    messageCount = 0;
    for (const e of visible) if (e.kind === MSG) messageCount++;
  }

  const ts = (sec: number): string => formatTs(startMs + sec * 1000, sk.tzMin);
  const facts = drawFacts(src.seed, rec.idx, src.company, src.planted, sk.channel === 'voice');
  const keep = withText ? <T extends string | null>(x: T): T => x : flat;
  const out: ConversationSummary = {
    id: rec.id,
    agent_id: sk.agent.detail.id,
    channel: sk.channel,
    direction: sk.direction,
    session_ref: keep(sk.sessionRef),
    page_url: keep(sk.pageUrl),
    started_at: keep(ts(0)),
    ended_at: endSec === null ? null : keep(ts(endSec)),
    duration_sec: endSec,
    message_count: messageCount,
    outcome: rec.open ? null : sk.outcome,
    summary: rec.open ? null : keep(summaryText(src.seed, rec.idx, sk, facts)),
  };
  if (!withText) return out;

  const rng = new Rng(hashSeed(src.seed, rec.idx, 0x7e47));
  const transcript: TranscriptEntry[] = [];
  const toolCalls: ToolCallEntry[] = [];
  const nodePath: NodePathEntry[] = [];
  const de = sk.agent.tpl.language === 'de';
  const memory = agentMemory();
  for (const e of visible) {
    const at = ts(map(e.t));
    if (e.kind === NODE) {
      nodePath.push({ at, node_key: e.node });
    } else if (e.kind === MSG) {
      transcript.push({ at, speaker: e.speaker!, text: transcriptLine(e, sk, facts, de, rng, memory), node_key: e.node });
    } else {
      const payload = toolPayload(e.tool!.def.slug, e.status!, facts, rng);
      toolCalls.push({
        at,
        tool_id: e.tool!.tool.id,
        slug: e.tool!.def.slug,
        node_key: e.node,
        status: e.status!,
        input_redacted: payload.input,
        output_redacted: payload.output,
      });
    }
  }
  const recording =
    sk.channel === 'voice' && rng.chance(0.9)
      ? `https://recordings.${src.spaceSlug}.sim.example/recordings/${sk.id}.wav`
      : null;
  const detail: ConversationDetail = {
    ...out,
    transcript,
    tool_calls: toolCalls,
    node_path: nodePath,
    recording_url: recording,
  };
  return detail;
}
