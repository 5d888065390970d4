// Pure, deterministic generation of a simulated Agent Management API space.
//
//   generateDataset({seed, conversations, now, days?, confidential?, exoticValues?}) => Dataset
//
// Same options (seed, conversations, now, days, exoticValues) => identical data.
//
// Memory: only conversation summaries are kept (one ConversationRecord each). A
// conversation's detail is regenerated on demand from (seed, record index, started_at,
// open/cut/cap state), with three independent PRNG streams per conversation:
//   skeleton (agent, channel, outcome, node path, turn timing, tool statuses),
//   facts (names, order numbers; shared by summary and transcript),
//   text (the words of each turn, tool payloads, recording).
// The summary is computed from the skeleton, so it always agrees with the detail:
//   message_count = transcript.length, duration_sec = ended_at - started_at,
//   outcome consistent with node_path (completed ends at `end`, transferred at a node of
//   type `transfer`, hung_up stops before any terminal node, failed stops at a tool node
//   whose last call failed, or mid-flow).
//
// Dataset shape (class Dataset below):
//   space, agents (AgentDetail[], list views drop behavior/workflow), tools, connections
//   (ConnectionDetail[], list views drop `tools`), records (newest first, ties by id),
//   conversations (getter: summaries newest first), record(id), detail(id),
//   addConversation(startedAt, {open}), finishOpenConversations(now), finishDue(now),
//   openRecords(), version (bumped on every change).
//
// Time model: the history spans `days` days ending at `now`; finished conversations started
// before the 3–5 open (in-progress) ones, which started in the last ~10 minutes. All
// timestamps are whole seconds; conversations use `Z` (with exoticValues a few use a
// non-UTC offset such as +02:00), agents/tools/connections use `+00:00`.
// Workflow nodes are `{type, title, tool_ids?}` with type one of greeting, conversation,
// tool, knowledge, transfer, end; edges map node_key -> next node_keys ([] for terminals).

import type {
  AgentDetail,
  ConnectionDetail,
  ConversationDetail,
  ConversationSummary,
  NodePathEntry,
  Space,
  Tool,
  ToolCallEntry,
  TranscriptEntry,
  Workflow,
} from '../api/types.js';
import * as C from './catalog.js';
import { Rng, hashSeed } from './random.js';

export interface GenerateOptions {
  seed: number;
  /** number of conversations in the history, including the 3–5 still open */
  conversations: number;
  /** end of the history; the open conversations started shortly before it */
  now: Date;
  /** history length in days, default 28 */
  days?: number;
  /** only recorded on the dataset (the server omits summary/transcript/recording_url) */
  confidential?: boolean;
  /** a few values the spec does not list: direction outbound, outcome voicemail,
   *  tool status rate_limited, timestamps with a non-UTC offset */
  exoticValues?: boolean;
}

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

type NodeType = C.NodeType;

interface ToolRt {
  def: C.ToolDef;
  tool: Tool;
}

interface CompiledWorkflow {
  start: string;
  type: Map<string, NodeType>;
  next: Map<string, string[]>;
  tools: Map<string, ToolRt[]>;
  distEnd: Map<string, number>;
  distTransfer: Map<string, number>;
  distTool: Map<string, number>;
}

interface AgentRt {
  detail: AgentDetail;
  tpl: C.AgentTemplate;
  wf: CompiledWorkflow;
  /** no conversations start at or after this instant (paused agents) */
  pausedAtMs: number | null;
}

const MSG = 0;
const TOOL = 1;
const NODE = 2;

interface Ev {
  t: number;
  kind: 0 | 1 | 2;
  node: string;
  speaker?: 'agent' | 'caller';
  purpose?: string;
  tool?: ToolRt;
  status?: string;
}

interface Skeleton {
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

interface Facts {
  name: string;
  order: string;
  invoice: string;
  day: string;
  company: string;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

// Hour-of-day (UTC) and day-of-week weights: business hours, quieter weekends.
const HOUR_WEIGHTS = [
  0.05, 0.03, 0.02, 0.02, 0.03, 0.08, 0.25, 0.6, 1.0, 1.3, 1.4, 1.35, 1.1, 1.2, 1.3, 1.25, 1.1, 0.9, 0.6, 0.45,
  0.35, 0.25, 0.15, 0.08,
];
const DOW_WEIGHTS = [0.3, 1.1, 1.0, 1.0, 1.0, 0.9, 0.45]; // Sunday first

const FAIL_STATUSES: readonly (readonly [string, number])[] = [
  ['error', 0.45],
  ['timeout', 0.35],
  ['http_500', 0.2],
];

const dayPrefixCache = new Map<number, string>();

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** 'YYYY-MM-DDTHH:MM:SS' of a UTC instant (whole seconds), with a per-day cache (hot path). */
function isoSeconds(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let prefix = dayPrefixCache.get(day);
  if (prefix === undefined) {
    prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    if (dayPrefixCache.size > 20_000) dayPrefixCache.clear();
    dayPrefixCache.set(day, prefix);
  }
  const secOfDay = Math.floor((ms - day * DAY_MS) / 1000);
  const h = Math.floor(secOfDay / 3600);
  const m = Math.floor((secOfDay % 3600) / 60);
  return `${prefix}${two(h)}:${two(m)}:${two(secOfDay % 60)}`;
}

/** ISO 8601 at second precision: `Z` for offset 0, else local time with `+hh:mm`/`-hh:mm`. */
export function formatTs(ms: number, tzMin = 0): string {
  if (tzMin === 0) return `${isoSeconds(ms)}Z`;
  const local = isoSeconds(ms + tzMin * 60_000);
  const sign = tzMin < 0 ? '-' : '+';
  const abs = Math.abs(tzMin);
  return `${local}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/**
 * A flat copy of a string. Concatenation builds rope ("cons") strings that cost ~4x the
 * memory of a flat one; summaries of 100k+ conversations stay in memory, so flatten those.
 */
function flat<T extends string | null>(s: T): T {
  return (s === null ? s : JSON.parse(JSON.stringify(s))) as T;
}

function formatMeta(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + '+00:00';
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`simulator: missing ${what}`);
  return value;
}

function fill(template: string, f: Facts): string {
  return template.replace(/\{(\w+)\}/g, (_m, key: string) => {
    const v = (f as unknown as Record<string, string>)[key];
    return v ?? '';
  });
}

/** Reverse BFS: distance from every node to the nearest target. */
function distances(next: Map<string, string[]>, targets: (key: string) => boolean): Map<string, number> {
  const prev = new Map<string, string[]>();
  for (const [from, tos] of next) {
    for (const to of tos) {
      const list = prev.get(to) ?? [];
      list.push(from);
      prev.set(to, list);
    }
  }
  const dist = new Map<string, number>();
  const queue: string[] = [];
  for (const key of next.keys()) {
    if (targets(key)) {
      dist.set(key, 0);
      queue.push(key);
    }
  }
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    const d = dist.get(node)!;
    for (const p of prev.get(node) ?? []) {
      if (!dist.has(p)) {
        dist.set(p, d + 1);
        queue.push(p);
      }
    }
  }
  return dist;
}

function buildWorkflow(
  tpl: C.AgentTemplate,
  toolsBySlug: Map<string, ToolRt>,
  rng: Rng,
): { workflow: Workflow; compiled: CompiledWorkflow; toolIds: string[] } {
  const keys: string[] = ['greeting'];
  if (tpl.identify) keys.push('identify_caller');
  keys.push('route_intent', ...tpl.intents, 'anything_else');
  if (tpl.transfer) keys.push('transfer_to_human');
  keys.push('end');

  const next = new Map<string, string[]>();
  const exits = tpl.transfer ? ['transfer_to_human', 'end'] : ['end'];
  next.set('greeting', [tpl.identify ? 'identify_caller' : 'route_intent']);
  if (tpl.identify) next.set('identify_caller', tpl.transfer ? ['route_intent', 'transfer_to_human'] : ['route_intent']);
  next.set('route_intent', [...tpl.intents, ...exits]);
  for (const intent of tpl.intents) next.set(intent, ['anything_else', ...exits]);
  next.set('anything_else', ['route_intent', 'end']);
  if (tpl.transfer) next.set('transfer_to_human', []);
  next.set('end', []);

  const type = new Map<string, NodeType>();
  const tools = new Map<string, ToolRt[]>();
  const nodes: Record<string, unknown> = {};
  const toolIds = new Set<string>();
  for (const key of keys) {
    const def = must(C.NODE_LIBRARY[key], `node ${key}`);
    type.set(key, def.type);
    const rts = (def.tools ?? []).map((slug) => must(toolsBySlug.get(slug), `tool ${slug}`));
    tools.set(key, rts);
    for (const rt of rts) toolIds.add(rt.tool.id);
    const node: Record<string, unknown> = { type: def.type, title: def.title };
    if (rts.length > 0) node.tool_ids = rts.map((rt) => rt.tool.id);
    if (def.type === 'transfer') node.phone_number = `+41 44 ${rng.int(200, 899)} ${rng.int(10, 99)} ${rng.int(10, 99)}`;
    if (def.type === 'knowledge') node.knowledge_scope = 'all';
    nodes[key] = node;
  }
  const edges: Record<string, unknown> = {};
  for (const key of keys) edges[key] = [...(next.get(key) ?? [])];

  const compiled: CompiledWorkflow = {
    start: 'greeting',
    type,
    next,
    tools,
    distEnd: distances(next, (k) => type.get(k) === 'end'),
    distTransfer: distances(next, (k) => type.get(k) === 'transfer'),
    distTool: distances(next, (k) => type.get(k) === 'tool'),
  };
  return { workflow: { start_node: 'greeting', nodes, edges }, compiled, toolIds: [...toolIds] };
}

function isTerminal(wf: CompiledWorkflow, key: string): boolean {
  const t = wf.type.get(key);
  return t === 'end' || t === 'transfer';
}

/**
 * Walks the workflow from its start. `mode` says where the walk must stop:
 * end: at the end node; transfer: at a transfer node; tool: at a tool node (no terminal);
 * wander: anywhere before a terminal (hung up).
 */
function walk(wf: CompiledWorkflow, mode: 'end' | 'transfer' | 'tool' | 'wander', rng: Rng): string[] {
  const dist = mode === 'end' ? wf.distEnd : mode === 'transfer' ? wf.distTransfer : mode === 'tool' ? wf.distTool : null;
  const wander = mode === 'wander' ? rng.int(1, 5) : rng.int(1, 4);
  const path = [wf.start];
  let cur = wf.start;
  for (let step = 0; step < 24; step++) {
    if (dist && dist.get(cur) === 0 && (isTerminal(wf, cur) || step >= wander)) break;
    if (!dist && step >= wander) break;
    let cands = (wf.next.get(cur) ?? []).filter((n) => (mode === 'end' || mode === 'transfer' ? true : !isTerminal(wf, n)));
    if (dist) cands = cands.filter((n) => dist.has(n));
    if (cands.length === 0) break;
    let chosen: string;
    if (step < wander || !dist) {
      chosen = rng.weighted(cands.map((c) => [c, isTerminal(wf, c) ? 0.25 : c === 'anything_else' ? 0.5 : 1] as const));
    } else {
      let best = Infinity;
      for (const c of cands) best = Math.min(best, dist.get(c)!);
      chosen = rng.pick(cands.filter((c) => dist.get(c) === best));
    }
    path.push(chosen);
    cur = chosen;
  }
  return path;
}

export class Dataset {
  readonly seed: number;
  readonly now: Date;
  readonly days: number;
  readonly confidential: boolean;
  readonly exoticValues: boolean;
  readonly space: Space;
  readonly agents: AgentDetail[];
  readonly tools: Tool[];
  readonly connections: ConnectionDetail[];
  /** newest first (started_at descending, ties by id ascending) */
  readonly records: ConversationRecord[] = [];
  /** bumped whenever a conversation is added or changed */
  version = 0;

  private readonly company: string;
  private readonly domain: string;
  private readonly byId = new Map<string, ConversationRecord>();
  private readonly open = new Set<ConversationRecord>();
  private readonly agentRts: AgentRt[] = [];
  private readonly eligibleBefore: (readonly [AgentRt, number])[];
  private readonly eligibleAfter: (readonly [AgentRt, number])[];
  private readonly pausedAtMs: number;
  private nextIdx = 0;

  constructor(opts: GenerateOptions) {
    this.seed = opts.seed >>> 0;
    this.now = new Date(Math.floor(opts.now.getTime() / 1000) * 1000);
    this.days = opts.days ?? 28;
    this.confidential = opts.confidential ?? false;
    this.exoticValues = opts.exoticValues ?? false;
    if (!Number.isFinite(this.now.getTime())) throw new Error('generateDataset: invalid now');
    if (!(this.days > 0)) throw new Error('generateDataset: days must be > 0');
    if (!(opts.conversations >= 0)) throw new Error('generateDataset: conversations must be >= 0');

    const nowMs = this.now.getTime();
    const rng = new Rng(hashSeed(this.seed, 0xca7a));
    const [companySlug, companyName] = rng.pick(C.COMPANIES);
    this.company = companyName;
    this.domain = `${companySlug}.example`;
    const slug = `${companySlug}-${rng.pick(C.SLUG_SUFFIXES)}`;
    this.space = {
      slug,
      name: `${companyName} ${slug.split('-')[1]!.replace(/^./, (c) => c.toUpperCase())}`,
      llm_options: C.LLM_OPTIONS.map((id) => ({ id })),
    };
    const historyStart = nowMs - this.days * DAY_MS;
    const metaTs = (minDaysAgo: number, maxDaysAgo: number): number =>
      Math.floor((nowMs - rng.float(minDaysAgo, maxDaysAgo) * DAY_MS) / 1000) * 1000;

    // Connections
    const connDefs: { key: C.ConnectionKey; name: string; kind: string; connector: string | null; module: string | null; base_url: string; auth_status: string }[] = [
      { key: 'shop', name: `${companyName} shop backend`, kind: 'custom', connector: null, module: null, base_url: `https://api.${this.domain}/v2`, auth_status: 'configured' },
      { key: 'calendar', name: 'Showroom calendar', kind: 'connector', connector: 'google_calendar', module: null, base_url: 'https://www.googleapis.com/calendar/v3', auth_status: 'configured' },
      { key: 'helpdesk', name: 'Helpdesk & billing', kind: 'module', connector: null, module: 'tickets', base_url: `https://${slug}.platform.example/modules/tickets`, auth_status: rng.chance(0.5) ? 'configured' : 'error' },
    ];
    const connByKey = new Map<C.ConnectionKey, ConnectionDetail>();
    this.connections = connDefs.map((d) => {
      const created = metaTs(this.days + 100, this.days + 400);
      const conn: ConnectionDetail = {
        id: rng.uuid(),
        name: d.name,
        kind: d.kind,
        connector: d.connector,
        module: d.module,
        base_url: d.base_url,
        auth_status: d.auth_status,
        tool_count: 0,
        created_at: formatMeta(created),
        updated_at: formatMeta(created + rng.int(0, 90) * DAY_MS),
        tools: [],
      };
      connByKey.set(d.key, conn);
      return conn;
    });

    // Tools
    const toolsBySlug = new Map<string, ToolRt>();
    this.tools = C.TOOL_DEFS.map((def) => {
      const conn = must(connByKey.get(def.connection), 'connection');
      const created = metaTs(this.days + 30, this.days + 100);
      const tool: Tool = {
        id: rng.uuid(),
        connection_id: conn.id,
        slug: def.slug,
        name: def.name,
        description: def.description,
        recipe: {
          kind: 'fetch',
          announce: def.announce !== null,
          announce_text: def.announce ?? '',
          sources: {
            a: {
              method: def.method,
              url: def.url,
              params: def.params.map((p) => ({ from: 'llm', name: p.name, value: p.value, type: 'string', required: p.required })),
            },
          },
          output: { fields: [...def.fields], limit: def.limit, remember: [...def.remember] },
        },
        usage_count: 0,
        sync_status: 'synced',
        sync_error: null,
        created_at: formatMeta(created),
        updated_at: formatMeta(created + rng.int(0, 20) * DAY_MS),
      };
      conn.tool_count++;
      conn.tools.push({ id: tool.id, slug: tool.slug, name: tool.name });
      toolsBySlug.set(def.slug, { def, tool });
      return tool;
    });

    // Agents: 3–6 active (order support and web chat always), one paused, one draft.
    const [first, second, ...rest] = C.ACTIVE_TEMPLATES;
    const activeCount = rng.int(3, 6);
    const templates: C.AgentTemplate[] = [must(first, 'template'), must(second, 'template'), ...rng.shuffle([...rest]).slice(0, activeCount - 2)];
    const pausedAtMs = Math.floor((nowMs - rng.float(4, Math.max(5, Math.min(12, this.days - 1))) * DAY_MS) / 1000) * 1000;
    this.pausedAtMs = pausedAtMs;
    const all: { tpl: C.AgentTemplate; status: string }[] = [
      ...templates.map((tpl) => ({ tpl, status: 'active' })),
      { tpl: C.PAUSED_TEMPLATE, status: 'paused' },
      { tpl: C.DRAFT_TEMPLATE, status: 'draft' },
    ];
    this.agents = all.map(({ tpl, status }) => {
      const { workflow, compiled, toolIds } = buildWorkflow(tpl, toolsBySlug, rng);
      if (rng.chance(0.5) && !toolIds.includes(toolsBySlug.get('create_ticket')!.tool.id)) {
        toolIds.push(toolsBySlug.get('create_ticket')!.tool.id);
      }
      for (const id of toolIds) {
        const t = this.tools.find((x) => x.id === id);
        if (t) t.usage_count++;
      }
      const created = status === 'draft' ? metaTs(1, 3) : metaTs(this.days + 20, this.days + 400);
      const updated = status === 'paused' ? pausedAtMs : status === 'draft' ? created + rng.int(60, 7200) * 1000 : created + rng.int(1, 20) * DAY_MS;
      const firstMessage = tpl.firstMessage.replace('{company}', companyName);
      const hours = tpl.key === 'after_hours' ? '18:00–08:00' : 'Mon–Fri 8:00–18:00, Sat 9:00–14:00';
      const closeness = tpl.language === 'de' ? 'formal' : rng.pick(['formal', 'personal']);
      const detail: AgentDetail = {
        id: rng.uuid(),
        space: slug,
        name: tpl.name,
        description: tpl.description,
        status,
        language: tpl.language,
        voice_id: tpl.chatShare < 1 && rng.chance(0.7) ? rng.uuid() : null,
        model: rng.chance(0.3) ? null : rng.pick(C.LLM_OPTIONS),
        first_message: { text: firstMessage, interruptible: rng.chance(0.7) },
        tool_ids: toolIds,
        knowledge_ids: Array.from({ length: rng.int(0, 4) }, () => rng.uuid()),
        knowledge_folder_ids: Array.from({ length: rng.int(0, 2) }, () => rng.uuid()),
        phone_number_ids: tpl.chatShare < 1 ? [rng.uuid()] : [],
        sync_status: status === 'draft' ? 'draft' : 'synced',
        sync_error: null,
        last_synced_at: formatMeta(status === 'draft' ? created : updated),
        created_at: formatMeta(created),
        updated_at: formatMeta(updated),
        behavior: {
          blocks: [
            { key: 'role', type: 'role' },
            { key: 'company', type: 'company' },
            { key: 'tone', type: 'tone' },
          ],
          values: {
            role: { text: tpl.role },
            company: { name: companyName, hours },
            tone: { closeness, style: 'brief', length: 'two_three_sentences' },
          },
          rendered_prompt: `# Role\n${tpl.role}\n\n# Company\n${companyName}, opening hours: ${hours}\n\n# Tone\n${closeness}, brief, two to three sentences.`,
        },
        workflow,
      };
      const rt: AgentRt = { detail, tpl, wf: compiled, pausedAtMs: status === 'paused' ? pausedAtMs : null };
      if (status !== 'draft') this.agentRts.push(rt);
      return detail;
    });
    // List order: newest agent first.
    this.agents.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    this.eligibleBefore = this.agentRts.map((a) => [a, a.tpl.weight] as const);
    this.eligibleAfter = this.agentRts.filter((a) => a.pausedAtMs === null).map((a) => [a, a.tpl.weight] as const);

    this.generateHistory(opts.conversations, historyStart, nowMs);
  }

  private generateHistory(total: number, historyStart: number, nowMs: number): void {
    const rng = new Rng(hashSeed(this.seed, 0x7171, total, this.days));
    const openCount = Math.min(total, 3 + rng.int(0, 2));
    const openStarts: number[] = [];
    for (let i = 0; i < openCount; i++) openStarts.push(nowMs - rng.int(20, 600) * 1000);
    openStarts.sort((a, b) => a - b);
    for (let i = 1; i < openStarts.length; i++) {
      if (openStarts[i] === openStarts[i - 1]) openStarts[i] = openStarts[i]! + 1000;
    }
    const historyEnd = nowMs - 15 * 60_000;

    // Hourly buckets over [historyStart, historyEnd) weighted by hour of day and weekday.
    const finishedCount = total - openCount;
    const starts = new Float64Array(finishedCount);
    if (finishedCount > 0) {
      const firstBucket = Math.floor(historyStart / HOUR_MS) * HOUR_MS;
      const bucketStarts: number[] = [];
      const cumulative: number[] = [];
      let acc = 0;
      for (let b = firstBucket; b < historyEnd; b += HOUR_MS) {
        const lo = Math.max(b, historyStart);
        const hi = Math.min(b + HOUR_MS, historyEnd);
        if (hi <= lo) continue;
        const d = new Date(b);
        acc += HOUR_WEIGHTS[d.getUTCHours()]! * DOW_WEIGHTS[d.getUTCDay()]! * ((hi - lo) / HOUR_MS);
        bucketStarts.push(b);
        cumulative.push(acc);
      }
      for (let i = 0; i < finishedCount; i++) {
        const u = rng.next() * acc;
        let lo = 0;
        let hi = cumulative.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (cumulative[mid]! > u) hi = mid;
          else lo = mid + 1;
        }
        const b = bucketStarts[lo]!;
        const from = Math.max(b, historyStart);
        const to = Math.min(b + HOUR_MS, historyEnd);
        starts[i] = Math.floor((from + rng.next() * (to - from)) / 1000) * 1000;
      }
      starts.sort();
      // Spread accidental same-second collisions, then let ~1% copy their predecessor's
      // instant, so that ~2% of conversations share a started_at with another one.
      if (finishedCount * 4 < (historyEnd - historyStart) / 1000) {
        for (let i = 1; i < finishedCount; i++) if (starts[i]! <= starts[i - 1]!) starts[i] = starts[i - 1]! + 1000;
      }
      for (let i = 1; i < finishedCount; i++) if (rng.chance(0.01)) starts[i] = starts[i - 1]!;
    }

    const all: ConversationRecord[] = [];
    const makeRecord = (startMs: number, open: boolean): ConversationRecord =>
      this.newRecord(startMs, open, open ? nowMs : startMs, open ? null : nowMs);
    for (let i = 0; i < finishedCount; i++) all.push(makeRecord(starts[i]!, false));
    for (const s of openStarts) all.push(makeRecord(s, true));
    all.sort(compareRecords);
    for (const rec of all) {
      this.records.push(rec);
      this.byId.set(rec.id, rec);
      if (rec.open) this.open.add(rec);
    }
  }

  /** Summaries, newest first (a fresh array on every call). */
  get conversations(): ConversationSummary[] {
    return this.records.map((r) => r.summary);
  }

  record(id: string): ConversationRecord | undefined {
    return this.byId.get(id);
  }

  /** The full detail (all fields; the server strips confidential ones). */
  detail(id: string): ConversationDetail | undefined {
    const rec = this.byId.get(id);
    if (!rec) return undefined;
    return this.assemble(rec, this.skeleton(rec.idx, rec.startMs), true) as ConversationDetail;
  }

  /** Conversations still in progress, newest first. */
  openRecords(): ConversationRecord[] {
    return [...this.open].sort(compareRecords);
  }

  /** The next record (its index decides its content) with its summary assembled. */
  private newRecord(startMs: number, open: boolean, cutMs: number, capMs: number | null): ConversationRecord {
    const idx = this.nextIdx++;
    const skel = this.skeleton(idx, startMs, open);
    const rec: ConversationRecord = {
      idx,
      id: flat(skel.id),
      startMs,
      open,
      cutMs,
      capMs,
      summary: undefined as unknown as ConversationSummary,
    };
    rec.summary = this.assemble(rec, skel, false) as ConversationSummary;
    return rec;
  }

  /**
   * Adds a conversation that started at `startedAt` (rounded down to the second).
   * open (default true): in progress, only the greeting so far. open false: finished,
   * with its natural length (ended_at may then lie after the current time).
   */
  addConversation(startedAt: Date, opts: { open?: boolean } = {}): ConversationSummary {
    const open = opts.open ?? true;
    const startMs = Math.floor(startedAt.getTime() / 1000) * 1000;
    if (!Number.isFinite(startMs)) throw new Error('addConversation: invalid date');
    const rec = this.newRecord(startMs, open, startMs, null);
    // Insert keeping newest-first order (binary search; arrivals usually go to index 0).
    let lo = 0;
    let hi = this.records.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareRecords(this.records[mid]!, rec) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.records.splice(lo, 0, rec);
    this.byId.set(rec.id, rec);
    if (open) this.open.add(rec);
    this.version++;
    return rec.summary;
  }

  /**
   * Finishes every open conversation at `now`: it gets ended_at, outcome and its full
   * transcript. A conversation whose natural end lies after `now` is compressed so that
   * ended_at = now (the part already visible keeps its timestamps). Returns the count.
   */
  finishOpenConversations(now: Date): number {
    return this.finish([...this.open], now.getTime());
  }

  /** Finishes the open conversations whose natural end is at or before `now`. */
  finishDue(now: Date): number {
    const nowMs = now.getTime();
    const due = [...this.open].filter((rec) => rec.startMs + this.skeleton(rec.idx, rec.startMs, false).endSec * 1000 <= nowMs);
    return this.finish(due, nowMs);
  }

  private finish(recs: ConversationRecord[], nowMs: number): number {
    for (const rec of recs) {
      rec.open = false;
      rec.capMs = Math.max(nowMs, rec.startMs);
      rec.summary = this.assemble(rec, this.skeleton(rec.idx, rec.startMs, false), false) as ConversationSummary;
      this.open.delete(rec);
    }
    if (recs.length > 0) this.version++;
    return recs.length;
  }

  // ---------------------------------------------------------------- skeleton

  /** collect: keep the event list (needed for details and open conversations), else only counts. */
  private skeleton(idx: number, startMs: number, collect = true): Skeleton {
    const rng = new Rng(hashSeed(this.seed, idx, 0x5ce1));
    const id = rng.uuid();
    const tzMin = this.exoticValues && rng.chance(0.02) ? rng.pick([120, -300, 330]) : 0;
    const eligible = startMs < this.pausedAtMs ? this.eligibleBefore : this.eligibleAfter;
    const agent = rng.weighted(eligible);
    const channel = rng.chance(agent.tpl.chatShare) ? 'chat' : 'voice';
    const outbound = this.exoticValues && channel === 'voice' && rng.chance(0.015);
    const direction = outbound ? 'outbound' : 'inbound';
    const sessionRef = channel === 'chat' ? `ws_${rng.hex(10)}` : null;
    const pageUrl = channel === 'chat' ? `https://www.${this.domain}${rng.pick(C.PAGE_PATHS)}` : null;

    const wf = agent.wf;
    let outcome = rng.weighted([
      ['completed', 0.66],
      ['transferred', 0.15],
      ['hung_up', 0.12],
      ['failed', 0.07],
    ] as const) as string;
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
    const msg = (speaker: 'agent' | 'caller', purpose: string): void => {
      msgCount++;
      if (collect) events.push({ t, kind: MSG, node, speaker, purpose });
      t += voice ? (speaker === 'agent' ? rng.int(2, 9) : rng.int(1, 7)) : speaker === 'agent' ? rng.int(1, 4) : rng.int(4, 35);
    };
    const callTool = (rt: ToolRt, status: string): void => {
      t += rng.int(0, 1);
      if (collect) events.push({ t, kind: TOOL, node, tool: rt, status });
      t += status === 'timeout' ? rng.int(8, 10) : rng.int(1, 3);
    };
    const normalStatus = (): string => {
      if (this.exoticValues && rng.chance(0.01)) return 'rate_limited';
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
          const failAt = forcedFail ? rng.int(0, Math.max(0, rts.length - 1)) : -1;
          let failed = false;
          for (let k = 0; k < rts.length; k++) {
            const status = k === failAt ? rng.weighted(FAIL_STATUSES) : normalStatus();
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

  // ---------------------------------------------------------------- assembly

  private facts(idx: number): Facts {
    const rng = new Rng(hashSeed(this.seed, idx, 0xfac7));
    return {
      name: rng.pick(C.CUSTOMER_NAMES),
      order: `A-${rng.int(10000, 99999)}`,
      invoice: `INV-${rng.int(2023, 2025)}-${String(rng.int(1, 9999)).padStart(4, '0')}`,
      day: rng.pick(C.WEEKDAYS),
      company: this.company,
    };
  }

  /** Builds the summary (withText false) or the full detail (withText true) of a record. */
  private assemble(rec: ConversationRecord, sk: Skeleton, withText: boolean): ConversationSummary | ConversationDetail {
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
    const facts = this.facts(rec.idx);
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
      summary: rec.open ? null : keep(this.summaryText(rec.idx, sk, facts)),
    };
    if (!withText) return out;

    const rng = new Rng(hashSeed(this.seed, rec.idx, 0x7e47));
    const transcript: TranscriptEntry[] = [];
    const toolCalls: ToolCallEntry[] = [];
    const nodePath: NodePathEntry[] = [];
    const de = sk.agent.tpl.language === 'de';
    for (const e of visible) {
      const at = ts(map(e.t));
      if (e.kind === NODE) {
        nodePath.push({ at, node_key: e.node });
      } else if (e.kind === MSG) {
        transcript.push({ at, speaker: e.speaker!, text: this.line(e, sk, facts, de, rng), node_key: e.node });
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
        ? `https://recordings.${this.space.slug}.sim.example/${sk.id}.mp3`
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

  private summaryText(idx: number, sk: Skeleton, f: Facts): string {
    const rng = new Rng(hashSeed(this.seed, idx, 0x5a11));
    const seen: string[] = [];
    for (const key of sk.path) {
      let p: string | null;
      switch (key) {
        case 'lookup_order': p = `asked about the status of order ${f.order}`; break;
        case 'track_shipment': p = 'asked where the parcel is'; break;
        case 'start_return': p = `wanted to return items from order ${f.order}`; break;
        case 'faq': p = 'had a general question'; break;
        case 'book_appointment': p = `booked a showroom appointment for ${f.day}`; break;
        case 'reschedule_appointment': p = `moved an appointment to ${f.day}`; break;
        case 'check_invoice': p = `asked about invoice ${f.invoice}`; break;
        case 'update_payment': p = 'requested a payment link'; break;
        case 'take_message': p = 'left a message for the team'; break;
        default: p = null;
      }
      if (p !== null && !seen.includes(p)) seen.push(p);
    }
    const chat = sk.channel === 'chat';
    const who = chat ? 'Visitor' : 'Caller';
    const named = rng.chance(0.4) ? `${who} ${f.name}` : who;
    const what = seen.length > 0 ? seen.join(', then ') : 'did not say what they needed';
    let end: string;
    switch (sk.outcome) {
      case 'completed': end = 'Resolved by the agent.'; break;
      case 'transferred': end = 'Handed over to a human colleague.'; break;
      case 'hung_up': end = chat ? 'The visitor left the chat before the end.' : 'The caller hung up before the end.'; break;
      case 'failed': end = 'A tool call failed, so the request could not be completed.'; break;
      case 'voicemail': end = 'Nobody answered; the agent left a voicemail.'; break;
      default: end = '';
    }
    let text = `${named} ${what}. ${end}`;
    if (rng.chance(0.05)) text += `\nNote: ${who.toLowerCase()} said "${rng.pick(['this is the third time', 'ça ne marche pas', 'das ist ärgerlich'])}".`;
    return text;
  }

  private line(e: Ev, sk: Skeleton, f: Facts, de: boolean, rng: Rng): string {
    const p = e.purpose ?? '';
    let text: string;
    if (p === 'greet') text = sk.agent.detail.first_message.text;
    else if (p === 'voicemail') text = fill(rng.pick(C.VOICEMAIL_LINES), f);
    else if (p === 'greet_reply') text = rng.pick(['Hi!', 'Hello, yes, hi.', 'Grüezi', 'Hey 👋', 'Good morning.']);
    else if (p === 'anything_else') text = de ? 'Kann ich sonst noch etwas für Sie tun?' : 'Is there anything else I can help with?';
    else if (p === 'ask') text = rng.pick(de ? C.AGENT_ASK_DE : C.AGENT_ASK);
    else if (p.startsWith('intent:')) text = fill(rng.pick(C.INTENT_LINES[p.slice(7)] ?? C.CALLER_FILLERS), f);
    else if (p.startsWith('provide:')) text = fill(rng.pick(C.PROVIDE_LINES[p.slice(8)] ?? C.CALLER_FILLERS), f);
    else if (p === 'faq_q') text = rng.pick(C.FAQ_QUESTIONS);
    else if (p === 'faq_a') text = rng.pick(C.FAQ_ANSWERS);
    else if (p === 'announce') {
      const rt = sk.agent.wf.tools.get(e.node)?.[0];
      text = rt?.tool.recipe.announce_text || 'One moment please.';
    } else if (p.startsWith('ok:')) text = fill(rng.pick(C.TOOL_OK_LINES[p.slice(3)] ?? C.AGENT_ACK), f);
    else if (p === 'fail') text = rng.pick(C.TOOL_FAIL_LINES);
    else if (p === 'ack') text = fill(rng.pick(C.AGENT_ACK), f);
    else if (p === 'transfer') text = rng.pick(C.TRANSFER_LINES);
    else if (p === 'bye') text = rng.pick(de ? C.BYE_LINES_DE : C.BYE_LINES);
    else if (p === 'caller_bye') text = rng.pick(C.INTENT_LINES.end ?? ['Bye.']);
    else if (p === 'hangup_last') text = rng.pick(C.HANGUP_LAST_LINES);
    else text = fill(rng.pick(C.CALLER_FILLERS), f);
    if (e.speaker === 'caller') {
      const r = rng.next();
      if (r < 0.03) text = rng.pick(C.FORMULA_LINES);
      else if (r < 0.07) text += rng.pick(C.EMOJI);
      else if (r < 0.1) text += rng.pick(['\nAlso, the app crashed.', '\r\nP.S. thanks, really', '\n\n– sent from my phone']);
      else if (r < 0.12) text = `It said "${text.replace(/[.?!]$/, '')}", and then, well, nothing.`;
    }
    return text;
  }
}

function compareRecords(a: ConversationRecord, b: ConversationRecord): number {
  if (a.startMs !== b.startMs) return b.startMs - a.startMs;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function toolPayload(slug: string, status: string, f: Facts, rng: Rng): { input: unknown; output: unknown } {
  let input: unknown;
  let output: unknown;
  switch (slug) {
    case 'find_customer':
      input = { phone: '[REDACTED]' };
      output = { customer_id: `cus_${rng.hex(6)}`, name: f.name, tier: rng.pick([null, 'gold', 'silver']), emails: ['[REDACTED]'] };
      break;
    case 'lookup_order':
      input = { order_number: f.order };
      output = {
        order_number: f.order,
        status: rng.pick(['processing', 'shipped', 'delivered', 'cancelled']),
        items: Array.from({ length: rng.int(1, 3) }, () => ({ sku: `SKU-${rng.int(100, 999)}`, qty: rng.int(1, 3), title: rng.pick(['Trail Runner 2', 'Wool socks, 3 pack', 'Rain jacket "Nordkap"', 'Mütze']) })),
        total: { amount: rng.int(1000, 30000) / 100, currency: rng.pick(['EUR', 'CHF']) },
        shipping_address: '[REDACTED]',
      };
      break;
    case 'track_shipment':
      input = { tracking_id: rng.chance(0.5) ? f.order : `00340${rng.int(100000000, 999999999)}` };
      output = {
        carrier: rng.pick(['DHL', 'Swiss Post', 'UPS']),
        events: [
          { at: '2024-01-01T08:00:00Z', where: 'Hub Köln' },
          { at: '2024-01-02T06:30:00Z', where: 'Zustellbasis Zürich-Mülligen' },
        ],
        eta: f.day,
      };
      break;
    case 'create_return':
      input = { order_number: f.order, reason: rng.pick(['too small', 'Zu groß / too big', 'damaged, "box was wet"', null]) };
      output = { return_id: `R-${rng.int(1000, 9999)}`, label_url: 'https://returns.example/label/[REDACTED]' };
      break;
    case 'check_availability':
      input = { date: `2024-0${rng.int(1, 9)}-1${rng.int(0, 9)}` };
      output = rng.chance(0.2) ? [] : ['09:30', '11:00', '15:15'].slice(0, rng.int(1, 3));
      break;
    case 'book_appointment':
      input = { slot: '11:00', name: '[REDACTED]', phone: '[REDACTED]' };
      output = { appointment_id: `apt_${rng.hex(4)}`, confirmed: true, reminders: { sms: true, email: null } };
      break;
    case 'reschedule_appointment':
      input = { appointment_id: `apt_${rng.hex(4)}`, new_slot: '15:15' };
      output = { ok: true, previous_slot: '09:30' };
      break;
    case 'get_invoice':
      input = { invoice_number: f.invoice };
      output = { amount: rng.int(1000, 50000) / 100, currency: 'EUR', due_date: '2024-02-01', iban: '[REDACTED]', paid: rng.chance(0.3) };
      break;
    case 'send_payment_link':
      input = { invoice_number: f.invoice, channel: rng.pick(['sms', 'email']) };
      output = 'https://pay.example/l/[REDACTED]';
      break;
    case 'create_ticket':
      input = { subject: `Callback for ${f.name}`, body: `Caller asked for a callback.\nTopic: "order ${f.order}", urgent, please.` };
      output = { ticket_id: rng.int(1000, 99999) };
      break;
    default:
      input = {};
      output = null;
  }
  if (status !== 'ok') {
    output = rng.pick<unknown>([
      null,
      { error: status === 'timeout' ? 'timeout after 10s' : 'upstream error' },
      '<html><body><h1>500 Internal Server Error</h1></body></html>',
      { error: { code: status, message: 'Bearer [REDACTED] rejected', retry: status === 'rate_limited' } },
    ]);
  }
  return { input, output };
}

/** Generates a dataset; see the comment at the top of this file. */
export function generateDataset(opts: GenerateOptions): Dataset {
  return new Dataset(opts);
}
