// A conversation as the simulator serves it, before it is written as JSON: the detail rebuilt
// from the dataset with its timestamps rendered, its recording link signed and confidential
// fields left out. Shared by the routes and by the real-data mode, which changes the result.

import { createHmac } from 'node:crypto';
import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import type { ConversationRecord, Dataset } from '../dataset/dataset.js';
import type { RuntimeOptions } from '../options.js';
import { renderDetailInPlace, renderSummary } from './time-format.js';

function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
}

/** `url` with a presigned-style query that changes every second. */
export function signRecordingUrl(url: string, conversationId: string, apiKey: string, t: number): string {
  const sig = createHmac('sha256', apiKey).update(`${conversationId}:${Math.floor(t / 1000)}`).digest('hex');
  return `${url}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=${amzDate(t)}&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=${sig}`;
}

/**
 * The served detail of `rec` as a fresh object. `extend` may change the detail as generated,
 * before its timestamps are rendered (so whatever it adds is rendered too).
 */
export function servedDetail(dataset: Dataset, o: RuntimeOptions, rec: ConversationRecord, extend?: (generated: ConversationDetail) => void): ConversationDetail {
  const generated = dataset.detail(rec.id)!;
  extend?.(generated);
  const out: ConversationDetail = renderDetailInPlace(generated, o.timeFormat);
  if (out.recording_url) out.recording_url = signRecordingUrl(out.recording_url, out.id, o.apiKey, Date.now());
  if (o.confidential) {
    delete out.summary;
    delete out.transcript;
    delete out.recording_url;
  }
  return out;
}

/** The served list entry of a summary (as generated) as a fresh object. */
export function servedSummary(o: RuntimeOptions, summary: ConversationSummary): ConversationSummary {
  const out = { ...renderSummary(summary, o.timeFormat) };
  if (o.confidential) delete out.summary;
  return out;
}
