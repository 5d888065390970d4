// The real-data mode (startSimulator's `realData`, sim.realData): finished conversations served
// the way real data arrives, each drawn on its own from the seed: long (thousands of turns,
// large tool payloads), hard text, type drift, deleted at the source after being listed. Tests
// set the mutations of single conversations, make conversations vanish from lists, and ask
// what a careful client should end up with (truth). Nothing is stored per conversation but what
// tests set: draws are repeated on every request, bodies rebuilt (real-data-serve.ts).

import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import type { ConversationRecord, Dataset } from '../dataset/dataset.js';
import type { RuntimeOptions } from '../options.js';
import { Rng, hashSeed } from '../random.js';
import { DRIFT_EXPECT, drawDriftKinds, planDrift, type DriftKind } from './real-data-drift.js';
import { NO_MUTATIONS, mutatedDetail, mutatedSummary, type Mutations, type ServeContext } from './real-data-serve.js';
import { planText } from './real-data-text.js';
import { BROKEN_EXPECT, breakBody, type BrokenBody } from './real-data-broken.js';

export interface RealDataOptions {
  /** share (0..1) of finished conversations made long: turns drawn in longTurns, tool calls with large input/output payloads */
  long?: number;
  /** [min, max] turns of a long conversation; default [1000, 10000] */
  longTurns?: [number, number];
  /** share whose strings carry hard text (emoji sequences, RTL, invisible and control characters, a 100,000-character word, and in 60% strings cut mid-surrogate) */
  text?: number;
  /** share with type drift, 1–3 drift kinds each */
  drift?: number;
  /** share deleted at the source after being listed: still listed, detail answers 404 */
  deleted?: number;
  /** every agent, tool and connection named with a string cut mid-surrogate, and an agent's prompt and workflow node titles too (real-data-config.ts) */
  configText?: boolean;
}

export interface RealDataSet {
  /** transcript continued to `turns` entries; payloadBytes makes the whole detail body about that size */
  long?: { turns: number; payloadBytes?: number };
  text?: boolean;
  /** with text: also strings cut mid-surrogate (default true) */
  loneSurrogates?: boolean;
  drift?: DriftKind[];
  /** the detail body broken on the wire (alone: with no other mutation) */
  broken?: BrokenBody;
  deleted?: boolean;
}

export interface RealDataTruth {
  long: { turns: number; bodyBytes: number } | null;
  text: boolean;
  drift: DriftKind[];
  /** detail 404 but still listed */
  deleted: boolean;
  /** gone from lists and detail */
  vanished: boolean;
  /** precedence: deleted/vanished > set_aside > coerced > exact */
  expect: 'exact' | 'coerced' | 'set_aside' | 'deleted';
  /** the detail as the API meant it (what the client must store), null when deleted/vanished/set_aside.
   *  Its recording_url is signed when truth() is called (the query changes every second). */
  meant: ConversationDetail | null;
  /** the list entry as meant, null when vanished */
  meantSummary: ConversationSummary | null;
}

export interface RealDataControl {
  /** from now on serve conversation `id` with these mutations (replacing any drawn ones; {} for none); deterministic */
  set(id: string, m: RealDataSet): void;
  /** removes the conversations from lists (totals drop, pages shift) and their details answer 404 */
  vanish(ids: string[]): void;
  /** what was done to `id` and what a client should end up with */
  truth(id: string): RealDataTruth;
  /** ids with any mutation (including vanished), newest first */
  mutatedIds(): string[];
}

function share(name: string, value: number | undefined): number {
  const v = value ?? 0;
  if (!(Number.isFinite(v) && v >= 0 && v <= 1)) throw new Error(`realData.${name} must be a share from 0 to 1, got ${String(value)}`);
  return v;
}

function hasAny(m: Mutations): boolean {
  return m.long !== null || m.text !== null || m.drift !== null || m.deleted || m.broken !== null;
}

export class RealData implements RealDataControl {
  /** bumped whenever what lists show changes (set, vanish) */
  version = 0;
  private readonly ctx: ServeContext;
  private readonly shares: { long: number; text: number; drift: number; deleted: number };
  private readonly longTurns: [number, number];
  private readonly overrides = new Map<string, Mutations>();
  private readonly vanished = new Set<string>();

  constructor(dataset: Dataset, options: RuntimeOptions, opts: RealDataOptions = {}) {
    this.ctx = { dataset, options };
    this.shares = { long: share('long', opts.long), text: share('text', opts.text), drift: share('drift', opts.drift), deleted: share('deleted', opts.deleted) };
    const [min, max] = opts.longTurns ?? [1000, 10000];
    if (!(Number.isSafeInteger(min) && Number.isSafeInteger(max) && min >= 1 && max >= min)) {
      throw new Error(`realData.longTurns must be [min, max] whole numbers with 1 <= min <= max, got ${JSON.stringify(opts.longTurns)}`);
    }
    this.longTurns = [min, max];
  }

  /** Whether anything is changed at all (else the routes serve as they always did). */
  get active(): boolean {
    return this.drawing || this.overrides.size > 0 || this.vanished.size > 0;
  }

  get hasVanished(): boolean {
    return this.vanished.size > 0;
  }

  isVanished(id: string): boolean {
    return this.vanished.has(id);
  }

  /** What is done to `rec` now (null: nothing). Open conversations are never changed. */
  mutations(rec: ConversationRecord): Mutations | null {
    if (rec.open) return null;
    const set = this.overrides.get(rec.id);
    if (set) return hasAny(set) ? set : null;
    return this.drawing ? this.draw(rec) : null;
  }

  /** The outcome its list entry shows (unknown_enum serves voicemail), for the outcome filter. */
  servedOutcome(rec: ConversationRecord): string | null {
    return this.mutations(rec)?.drift?.kinds.includes('unknown_enum') ? 'voicemail' : rec.summary.outcome;
  }

  /** The list entry's JSON, or null when it is served unchanged. */
  summaryJson(rec: ConversationRecord): string | null {
    const m = this.mutations(rec);
    return m ? mutatedSummary(this.ctx, rec, m, false).json : null;
  }

  /** The detail body; 'gone' when deleted or vanished; null when it is served unchanged. */
  detailBody(rec: ConversationRecord): string | Buffer | 'gone' | null {
    if (this.vanished.has(rec.id)) return 'gone';
    const m = this.mutations(rec);
    if (!m) return null;
    if (m.deleted) return 'gone';
    const body = mutatedDetail(this.ctx, rec, m, false).body;
    return m.broken ? breakBody(body, m.broken) : body;
  }

  set(id: string, m: RealDataSet): void {
    const rec = this.record(id, 'set');
    if (rec.open) throw new Error(`realData.set: conversation ${id} is still open`);
    if (m.broken && (m.long || m.text || m.drift?.length || m.deleted)) throw new Error('realData.set: a broken body goes alone, with no other mutation');
    const seed = this.ctx.dataset.seed;
    let long: Mutations['long'] = null;
    if (m.long) {
      const { turns, payloadBytes } = m.long;
      if (!(Number.isSafeInteger(turns) && turns >= 1)) throw new Error(`realData.set: long.turns must be a whole number >= 1`);
      if (payloadBytes !== undefined && !(Number.isSafeInteger(payloadBytes) && payloadBytes >= 0)) throw new Error(`realData.set: long.payloadBytes must be a whole number >= 0`);
      long = { turns, payloadBytes: payloadBytes ?? null };
    }
    this.overrides.set(rec.id, {
      long,
      text: m.text ? planText(seed, rec.idx, m.loneSurrogates ?? true) : null,
      drift: m.drift && m.drift.length > 0 ? planDrift(seed, rec.idx, m.drift) : null,
      deleted: m.deleted ?? false,
      broken: m.broken ?? null,
    });
    this.version++;
  }

  vanish(ids: string[]): void {
    const recs = ids.map((id) => this.record(id, 'vanish'));
    for (const rec of recs) this.vanished.add(rec.id);
    this.version++;
  }

  truth(id: string): RealDataTruth {
    const rec = this.record(id, 'truth');
    const m = this.mutations(rec);
    const vanished = this.vanished.has(rec.id);
    const detail = mutatedDetail(this.ctx, rec, m ?? NO_MUTATIONS, true);
    const summary = mutatedSummary(this.ctx, rec, m ?? NO_MUTATIONS, true);
    const deleted = m?.deleted ?? false;
    let expect: RealDataTruth['expect'] = 'exact';
    if (vanished || deleted) expect = 'deleted';
    else if (m?.broken) expect = BROKEN_EXPECT[m.broken];
    else if (detail.drift.some((k) => DRIFT_EXPECT[k] === 'set_aside')) expect = 'set_aside';
    else if (detail.loneSurrogates || detail.drift.some((k) => DRIFT_EXPECT[k] === 'coerced')) expect = 'coerced';
    // a byte that is not UTF-8 reads as U+FFFD: the detail as the bytes decode
    const meant = m?.broken === 'invalid_utf8' ? (JSON.parse(breakBody(detail.body, m.broken).toString('utf8')) as { data: ConversationDetail }).data : detail.meant;
    return {
      long: m?.long ? { turns: detail.turns, bodyBytes: Buffer.byteLength(detail.body) } : null,
      text: m?.text !== null && m?.text !== undefined,
      drift: detail.drift,
      deleted,
      vanished,
      expect,
      meant: expect === 'exact' || expect === 'coerced' ? meant : null,
      meantSummary: vanished ? null : summary.meant,
    };
  }

  mutatedIds(): string[] {
    return this.ctx.dataset.records.filter((r) => this.vanished.has(r.id) || this.mutations(r) !== null).map((r) => r.id);
  }

  private get drawing(): boolean {
    const s = this.shares;
    return s.long > 0 || s.text > 0 || s.drift > 0 || s.deleted > 0;
  }

  private record(id: string, what: string): ConversationRecord {
    const rec = this.ctx.dataset.record(id.toLowerCase());
    if (!rec) throw new Error(`realData.${what}: no conversation ${id}`);
    return rec;
  }

  /** Each mutation drawn from its own stream of (seed, record index), so the shares do not interact. */
  private draw(rec: ConversationRecord): Mutations | null {
    const seed = this.ctx.dataset.seed;
    const s = this.shares;
    const stream = (purpose: number): Rng => new Rng(hashSeed(seed, rec.idx, purpose));
    const m: Mutations = { long: null, text: null, drift: null, deleted: false, broken: null };
    if (s.long > 0) {
      const rng = stream(0x1046);
      if (rng.next() < s.long) m.long = { turns: rng.int(this.longTurns[0], this.longTurns[1]), payloadBytes: null };
    }
    if (s.text > 0) {
      const rng = stream(0x7e87);
      if (rng.next() < s.text) m.text = planText(seed, rec.idx, rng.chance(0.6));
    }
    if (s.drift > 0) {
      const rng = stream(0xd71e);
      if (rng.next() < s.drift) m.drift = planDrift(seed, rec.idx, drawDriftKinds(rng));
    }
    if (s.deleted > 0) m.deleted = stream(0xde1e).next() < s.deleted;
    return hasAny(m) ? m : null;
  }
}
