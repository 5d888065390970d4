// The simulated space's data and its changes: class Dataset, made by generateDataset.
//
//   generateDataset({seed, conversations, now, days?, confidential?, exoticValues?, subSecond?}) => Dataset
//
// Same options (seed, conversations, now, days, exoticValues, subSecond) => identical data.
// The parts: space-setup.ts (space, connections, tools, agents), history.ts (when the
// conversations start), skeleton.ts (what happens in each), conversation.ts (its summary and
// detail), conversation-text.ts and tool-payloads.ts (its words).
//
// Shape: space, agents (AgentDetail[], list views drop behavior/workflow), tools, connections
// (ConnectionDetail[], list views drop `tools`), records (newest first, ties by id),
// conversations (getter: summaries newest first), record(id), detail(id),
// addConversation(startedAt, {open}), finishOpenConversations(now), finishDue(now),
// openRecords(), version (bumped on every change).
// All timestamps are whole seconds (with subSecond, finished conversations start at a
// millisecond inside their second, and their entries keep that millisecond).

import type { AgentDetail, ConnectionDetail, ConversationDetail, ConversationSummary, Space, Tool } from '../../api/types.js';
import { assembleDetail, assembleSummary, compareRecords, type ConversationRecord, type ConversationSource } from './conversation.js';
import { flat } from './dataset-format.js';
import { historyStarts } from './history.js';
import { planIncidents, type IncidentOptions } from './incidents.js';
import { Rng, hashSeed } from '../random.js';
import { drawFacts } from './conversation-text.js';
import { personalDataIn, type PersonalDataTruth, type PlantedCaller } from './personal-data.js';
import { buildSkeleton, type Skeleton, type SkeletonSource } from './skeleton.js';
import { setUpSpace } from './space-setup.js';

export type { ConversationRecord } from './conversation.js';

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
  /** conversations start at a millisecond inside their second (all their times carry it) */
  subSecond?: boolean;
  /** the space's slug instead of the one drawn from the seed */
  spaceSlug?: string;
  /** incidents planted in the history (incidents.ts) */
  incidents?: IncidentOptions;
  /** a caller with a known phone number in a share of the conversations (personal-data.ts) */
  plantedCaller?: PlantedCaller;
}

export class Dataset {
  readonly seed: number;
  readonly now: Date;
  readonly days: number;
  readonly confidential: boolean;
  readonly exoticValues: boolean;
  readonly subSecond: boolean;
  readonly space: Space;
  readonly agents: AgentDetail[];
  readonly tools: Tool[];
  readonly connections: ConnectionDetail[];
  /** newest first (started_at descending, ties by id ascending) */
  readonly records: ConversationRecord[] = [];
  /** bumped whenever a conversation is added or changed */
  version = 0;

  private readonly skeletonSource: SkeletonSource;
  private readonly conversationSource: ConversationSource;
  private readonly byId = new Map<string, ConversationRecord>();
  /** turn texts set by setTurnText, by conversation id and seq */
  private readonly turnTexts = new Map<string, Map<number, string>>();
  private readonly open = new Set<ConversationRecord>();
  private nextIdx = 0;

  constructor(opts: GenerateOptions) {
    this.seed = opts.seed >>> 0;
    this.now = new Date(Math.floor(opts.now.getTime() / 1000) * 1000);
    this.days = opts.days ?? 28;
    this.confidential = opts.confidential ?? false;
    this.exoticValues = opts.exoticValues ?? false;
    this.subSecond = opts.subSecond ?? false;
    if (!Number.isFinite(this.now.getTime())) throw new Error('generateDataset: invalid now');
    if (!(this.days > 0)) throw new Error('generateDataset: days must be > 0');
    if (!(opts.conversations >= 0)) throw new Error('generateDataset: conversations must be >= 0');

    const nowMs = this.now.getTime();
    const setup = setUpSpace(this.seed, nowMs, this.days, opts.spaceSlug);
    this.space = setup.space;
    this.agents = setup.agents;
    this.tools = setup.tools;
    this.connections = setup.connections;
    this.skeletonSource = {
      seed: this.seed,
      exoticValues: this.exoticValues,
      domain: setup.domain,
      pausedAtMs: setup.pausedAtMs,
      eligibleBefore: setup.eligibleBefore,
      eligibleAfter: setup.eligibleAfter,
      incidents: planIncidents(opts.incidents, nowMs, { connections: setup.connections, tools: setup.tools, eligible: setup.eligibleBefore }),
    };
    this.conversationSource = { seed: this.seed, company: setup.company, spaceSlug: setup.space.slug, ...(opts.plantedCaller ? { planted: opts.plantedCaller } : {}) };

    // Finished conversations take the first record indexes, then the open ones.
    const starts = historyStarts(this.seed, opts.conversations, this.days, nowMs, this.subSecond);
    const quiet = this.skeletonSource.incidents.quietDay;
    const kept = (s: number) => !quiet || s < quiet.fromMs || s >= quiet.toMs || new Rng(hashSeed(this.seed, s, 0x901e)).chance(quiet.fraction);
    const all: ConversationRecord[] = [];
    for (const s of starts.finished.filter(kept)) all.push(this.newRecord(s, false, s, nowMs));
    for (const s of starts.open) all.push(this.newRecord(s, true, nowMs, null));
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
    const detail = assembleDetail(this.conversationSource, rec, this.skeleton(rec.idx, rec.startMs));
    for (const [seq, text] of this.turnTexts.get(id) ?? []) {
      const turn = detail.transcript?.[seq];
      if (turn) turn.text = text;
    }
    return detail;
  }

  /**
   * From now on turn `seq` of conversation `id` says `text` (a phrase a search test looks for).
   * A turn the transcript does not have is an error.
   */
  setTurnText(id: string, seq: number, text: string): void {
    const turns = this.detail(id)?.transcript;
    if (!turns) throw new Error(`setTurnText: no conversation ${id}`);
    if (!(Number.isSafeInteger(seq) && seq >= 0 && seq < turns.length)) {
      throw new Error(`setTurnText: conversation ${id} has turns 0..${turns.length - 1}, not ${seq}`);
    }
    if (!this.turnTexts.has(id)) this.turnTexts.set(id, new Map());
    this.turnTexts.get(id)!.set(seq, text);
    this.version++;
  }

  /** Truth for tests: the caller of conversation `id` and which of their data its detail holds. */
  personalData(id: string): PersonalDataTruth | undefined {
    const rec = this.byId.get(id);
    if (!rec) return undefined;
    return personalDataIn(this.detail(id), drawFacts(this.seed, rec.idx, this.conversationSource.company, this.conversationSource.planted).personal());
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
    rec.summary = assembleSummary(this.conversationSource, rec, skel);
    return rec;
  }

  /**
   * Adds a conversation that started at `startedAt` (rounded down to the second, or to the
   * millisecond in a subSecond dataset).
   * open (default true): in progress, only the greeting so far. open false: finished,
   * with its natural length (ended_at may then lie after the current time), or compressed to
   * end by `endBy` when given.
   */
  addConversation(startedAt: Date, opts: { open?: boolean; endBy?: Date } = {}): ConversationSummary {
    const open = opts.open ?? true;
    const startMs = this.subSecond ? Math.floor(startedAt.getTime()) : Math.floor(startedAt.getTime() / 1000) * 1000;
    if (!Number.isFinite(startMs)) throw new Error('addConversation: invalid date');
    const capMs = !open && opts.endBy ? Math.max(startMs, opts.endBy.getTime()) : null;
    const rec = this.newRecord(startMs, open, startMs, capMs);
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
      rec.summary = assembleSummary(this.conversationSource, rec, this.skeleton(rec.idx, rec.startMs, false));
      this.open.delete(rec);
    }
    if (recs.length > 0) this.version++;
    return recs.length;
  }


  /** collect: keep the event list (needed for details and open conversations), else only counts. */
  private skeleton(idx: number, startMs: number, collect = true): Skeleton {
    return buildSkeleton(this.skeletonSource, idx, startMs, collect);
  }
}

/** Generates a dataset; see the comment at the top of this file. */
export function generateDataset(opts: GenerateOptions): Dataset {
  return new Dataset(opts);
}
