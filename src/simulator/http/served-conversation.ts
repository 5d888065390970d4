// A conversation as the simulator serves it, before it is written as JSON: the detail rebuilt
// from the dataset with its timestamps rendered, its recording link signed (recordings.ts) and
// confidential fields left out. Shared by the routes and by the real-data mode, which changes the result.

import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import type { ConversationRecord, Dataset } from '../dataset/dataset.js';
import type { RuntimeOptions } from '../options.js';
import { signRecordingUrl } from './recordings.js';
import { renderDetailInPlace, renderSummary } from './time-format.js';

/**
 * The served detail of `rec` as a fresh object. `extend` may change the detail as generated,
 * before its timestamps are rendered (so whatever it adds is rendered too).
 */
export function servedDetail(dataset: Dataset, o: RuntimeOptions, rec: ConversationRecord, extend?: (generated: ConversationDetail) => void): ConversationDetail {
  const generated = dataset.detail(rec.id)!;
  extend?.(generated);
  const out: ConversationDetail = renderDetailInPlace(generated, o.timeFormat);
  // Served from the recording host when the server is listening; the generated link otherwise.
  if (out.recording_url) {
    out.recording_url = o.recordingLinkOf ? o.recordingLinkOf(out.id) : signRecordingUrl(out.recording_url, out.id, o.apiKey, Date.now(), o.recordingLinkSeconds);
  }
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
