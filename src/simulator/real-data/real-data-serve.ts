// Serves one conversation with its real-data mutations: the list entry and the detail as JSON
// text, and on request what the API meant by them (every lone surrogate made U+FFFD, drift
// undone). Order: continue a long conversation on the generated detail, render it as usual
// (times, signed link, confidential fields), then hard text, payload sizes, drift, and last
// the edits only the JSON text can carry.

import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import type { ConversationRecord, Dataset } from '../dataset/dataset.js';
import { formatTs } from '../dataset/dataset-format.js';
import type { RuntimeOptions } from '../options.js';
import { driftDetail, driftSummary, floatMessageCount, type DriftKind, type DriftPlan } from './real-data-drift.js';
import { appendLong, fillLongPayloads, longTiming, tzOf, type LongBuild, type LongSpec, type LongTiming } from './real-data-long.js';
import { applyHardTextToDetail, hardSummary, hasLoneSurrogateDeep, wellFormedDeep, type TextPlan } from './real-data-text.js';
import { servedDetail, servedSummary } from '../http/served-conversation.js';
import type { BrokenBody } from './real-data-broken.js';

/** What is done to one conversation; every choice is already drawn, so serving is repeatable. */
export interface Mutations {
  long: LongSpec | null;
  text: TextPlan | null;
  drift: DriftPlan | null;
  deleted: boolean;
  broken: BrokenBody | null;
}

export const NO_MUTATIONS: Mutations = { long: null, text: null, drift: null, deleted: false, broken: null };

export interface ServeContext {
  dataset: Dataset;
  options: RuntimeOptions;
}

function timingOf(ctx: ServeContext, rec: ConversationRecord, m: Mutations): LongTiming | null {
  if (!m.long || rec.open) return null;
  return longTiming(ctx.dataset.seed, rec.idx, rec.summary, rec.startMs, m.long, ctx.dataset.now.getTime());
}

export interface ServedSummary {
  json: string;
  /** the list entry as meant (only when asked for) */
  meant: ConversationSummary | null;
}

export function mutatedSummary(ctx: ServeContext, rec: ConversationRecord, m: Mutations, withMeant: boolean): ServedSummary {
  let generated = rec.summary;
  const timing = timingOf(ctx, rec, m);
  if (timing) {
    const ended_at = formatTs(timing.endMs, tzOf(generated.started_at));
    generated = { ...generated, ended_at, duration_sec: timing.durationSec, message_count: timing.messageCount };
  }
  const served = servedSummary(ctx.options, generated);
  if (m.text && typeof served.summary === 'string') served.summary = hardSummary(served.summary, m.text);
  const meant = withMeant ? wellFormedDeep(served) : null;
  if (m.drift) driftSummary(served, meant, m.drift);
  const json = JSON.stringify(served);
  return { json: m.drift?.kinds.includes('float_integer') ? floatMessageCount(json) : json, meant };
}

export interface ServedDetail {
  /** the whole response body, {"data": …} */
  body: string;
  /** the detail as meant, before deciding whether it is kept (only when asked for) */
  meant: ConversationDetail | null;
  /** the drift kinds that found something to act on */
  drift: DriftKind[];
  /** whether a lone surrogate was served (only computed when the meant detail is asked for) */
  loneSurrogates: boolean;
  /** the served transcript length (message_count) */
  turns: number;
}

export function mutatedDetail(ctx: ServeContext, rec: ConversationRecord, m: Mutations, withMeant: boolean): ServedDetail {
  const { dataset, options } = ctx;
  const timing = timingOf(ctx, rec, m);
  const long: { build?: LongBuild } = {};
  const extend = timing
    ? (generated: ConversationDetail): void => {
        const agent = dataset.agents.find((a) => a.id === generated.agent_id);
        long.build = appendLong(dataset.seed, rec.idx, generated, timing, agent, dataset.tools);
      }
    : undefined;
  const served = servedDetail(dataset, options, rec, extend);
  const turns = served.message_count;
  if (m.text) applyHardTextToDetail(served, m.text);
  if (long.build && m.long) {
    // Sized against the body as it stands, so payloadBytes is the size of the whole body.
    const measured = m.long.payloadBytes === null ? 0 : Buffer.byteLength(JSON.stringify({ data: served }));
    fillLongPayloads(dataset.seed, rec.idx, long.build, m.long.payloadBytes, measured);
  }
  const meant = withMeant ? wellFormedDeep(served) : null;
  const drift = m.drift ? driftDetail(served, meant, m.drift, m.text || m.long ? ['transcript', 'tool_calls'] : []) : [];
  const body = JSON.stringify({ data: served });
  return {
    body: drift.includes('float_integer') ? floatMessageCount(body) : body,
    meant,
    drift,
    loneSurrogates: withMeant && m.text !== null && hasLoneSurrogateDeep(served),
    turns,
  };
}
