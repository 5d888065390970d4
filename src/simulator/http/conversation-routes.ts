// The conversation routes. The list (filters agent_id, channel, outcome, from, to) is newest
// first; ties in started_at come back rotated on every request (unstableTies), and hidden
// conversations (hiddenFromLists) keep their place and count in `total` but are never sent; a
// total off for good (listTotalExcess) counts more than any window holds.
// The detail is rebuilt for every request. Confidential: summary (list and detail),
// transcript and recording_url are omitted (keys absent). recording_url is signed at serving
// time (X-Amz-* query, expires after recordingLinkSeconds), so it changes from second to second like a real
// signed link. A malformed id gives 404, an unknown UUID in a filter an empty list. The
// real-data mode (real-data/real-data.ts), when active, changes what single conversations look like,
// answers 404 for deleted ones and drops vanished ones from lists.

import { KNOWN_CHANNELS, KNOWN_OUTCOMES } from '../../api/types.js';
import type { ConversationRecord, Dataset } from '../dataset/dataset.js';
import { listMeta, servedPageSize, sliceWithRotatedTies, spreadIds } from './listing.js';
import type { RuntimeOptions } from '../options.js';
import { UUID_RE } from '../random.js';
import type { RealData } from '../real-data/real-data.js';
import { notFound, type RouteResult } from './responses.js';
import { servedDetail } from './served-conversation.js';
import { renderSummary } from './time-format.js';
import { checkDate, checkEnum, checkUuid, paging, throwIfErrors, type FieldErrors } from './validation.js';

/** The outcome filter also accepts the exotic `voicemail`. */
const KNOWN_OUTCOME_FILTERS: readonly string[] = [...KNOWN_OUTCOMES, 'voicemail'];

/** Desc-sorted records: first index whose startMs satisfies pred (pred monotone false→true). */
function lowerBound(list: readonly ConversationRecord[], lo: number, hi: number, pred: (r: ConversationRecord) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pred(list[mid]!)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export class ConversationRoutes {
  private readonly filterCache = new Map<string, { version: string; list: ConversationRecord[] }>();
  /** turns the tie groups of each list request differently */
  private listCounter = 0;
  private hidden = new Set<string>();

  constructor(
    private readonly dataset: Dataset,
    private readonly options: RuntimeOptions,
    private readonly realData: RealData | null = null,
  ) {}

  /** From now on, `count` conversations spread over the current history are hidden from lists. */
  hide(count: number): void {
    this.hidden = new Set(spreadIds(this.dataset.records, count));
  }

  /** ids of the hidden conversations, newest first */
  hiddenIds(): string[] {
    return this.dataset.records.filter((r) => this.hidden.has(r.id)).map((r) => r.id);
  }

  list(q: URLSearchParams): RouteResult {
    const o = this.options;
    const errors: FieldErrors = {};
    const agentId = checkUuid(q, 'agent_id', errors);
    const channel = checkEnum(q, 'channel', KNOWN_CHANNELS, errors);
    const outcome = checkEnum(q, 'outcome', KNOWN_OUTCOME_FILTERS, errors);
    const fromMs = checkDate(q, 'from', errors);
    const toMs = checkDate(q, 'to', errors);
    const { page, perPage } = paging(q, errors);
    throwIfErrors(errors);
    const served = servedPageSize(perPage, o);

    const base = this.filtered(agentId, channel, outcome);
    const lo = toMs === null ? 0 : lowerBound(base, 0, base.length, (r) => r.startMs <= toMs);
    const hi = fromMs === null ? base.length : lowerBound(base, lo, base.length, (r) => r.startMs < fromMs);
    const total = Math.max(0, hi - lo);
    const s = lo + (page - 1) * served;
    const e = Math.min(hi, s + served);
    const counter = this.listCounter++;
    let items: readonly ConversationRecord[] = [];
    if (s < e) items = o.unstableTies ? sliceWithRotatedTies(base, lo, hi, s, e, counter) : base.slice(s, e);
    // Hidden conversations keep their position (and their place in `total`) but are not sent.
    if (this.hidden.size > 0) items = items.filter((r) => !this.hidden.has(r.id));
    let body = '{"data":[';
    for (let i = 0; i < items.length; i++) {
      if (i > 0) body += ',';
      body += this.summaryJson(items[i]!);
    }
    body += '],"meta":' + JSON.stringify(listMeta(page, served, total + o.listTotalExcess, o, perPage)) + '}';
    return { status: 200, body };
  }

  detail(id: string): RouteResult {
    const rec = UUID_RE.test(id) ? this.dataset.record(id.toLowerCase()) : undefined;
    if (!rec) notFound('conversation', id, this.dataset.space.slug);
    const real = this.realData?.active ? this.realData.detailBody(rec) : null;
    if (real === 'gone') notFound('conversation', id, this.dataset.space.slug);
    if (real !== null) return { status: 200, body: real };
    return { status: 200, body: JSON.stringify({ data: servedDetail(this.dataset, this.options, rec) }) };
  }

  private summaryJson(rec: ConversationRecord): string {
    const real = this.realData?.active ? this.realData.summaryJson(rec) : null;
    if (real !== null) return real;
    const summary = renderSummary(rec.summary, this.options.timeFormat);
    if (this.options.confidential) {
      const { summary: _s, ...rest } = summary;
      return JSON.stringify(rest);
    }
    return JSON.stringify(summary);
  }

  /** The records matching the filters (vanished ones left out), cached until the dataset or the real-data mode changes. */
  private filtered(agentId: string | undefined, channel: string | undefined, outcome: string | undefined): readonly ConversationRecord[] {
    const dataset = this.dataset;
    const real = this.realData?.active ? this.realData : null;
    const vanishing = real?.hasVanished ?? false;
    if (agentId === undefined && channel === undefined && outcome === undefined && !vanishing) return dataset.records;
    const key = `${agentId ?? ''}|${channel ?? ''}|${outcome ?? ''}`;
    const version = `${dataset.version}:${this.realData?.version ?? 0}`;
    const hit = this.filterCache.get(key);
    if (hit && hit.version === version) return hit.list;
    // Drift can serve another outcome than the generated one: filter by what is served.
    const outcomeOf = (r: ConversationRecord): string | null => (real ? real.servedOutcome(r) : r.summary.outcome);
    const list = dataset.records.filter(
      (r) =>
        !(vanishing && real!.isVanished(r.id)) &&
        (agentId === undefined || r.summary.agent_id === agentId) &&
        (channel === undefined || r.summary.channel === channel) &&
        (outcome === undefined || outcomeOf(r) === outcome),
    );
    if (this.filterCache.size > 64) this.filterCache.clear();
    this.filterCache.set(key, { version, list });
    return list;
  }
}
