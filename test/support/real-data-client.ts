// What a careful client makes of the real-data simulator's answers, written from the rules in
// the brief and independent of src/simulator: detectors of each drift kind in a served body,
// and the client's view of a served detail or list entry (the value it must store).

import type { DriftKind } from '../../src/simulator/index.js';

type Json = Record<string, unknown>;
const LISTS = ['transcript', 'tool_calls', 'node_path'] as const;

/** String.prototype.toWellFormed (Node 20 has it; the ES2022 lib does not declare it). */
export function toWellFormed(s: string): string {
  return (s as unknown as { toWellFormed(): string }).toWellFormed();
}

function wellFormedDeep(v: unknown): unknown {
  if (typeof v === 'string') return toWellFormed(v);
  if (Array.isArray(v)) return v.map(wellFormedDeep);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wellFormedDeep(x)]));
  return v;
}

/** The raw JSON text of the object that starts at `start` (strings and nesting respected). */
export function objectTextAt(text: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  throw new Error('unterminated object');
}

/** The raw text of the list entry of `id` in a list page's text. */
export function listEntryText(pageText: string, id: string): string {
  const at = pageText.indexOf(`{"id":"${id}"`);
  if (at < 0) throw new Error(`conversation ${id} is not on this page`);
  return objectTextAt(pageText, at);
}

function entries(v: unknown): Json[] {
  if (Array.isArray(v)) return v as Json[];
  if (v !== null && typeof v === 'object' && Array.isArray((v as Json).entries)) return (v as Json).entries as Json[];
  return [];
}

/** Whether the served detail (its text and parsed `data`) shows drift of this kind. */
export function showsDrift(kind: DriftKind, text: string, d: Json): boolean {
  const all = LISTS.flatMap((f) => entries(d[f]));
  switch (kind) {
    case 'number_string':
      return [d.duration_sec, d.message_count].some((v) => typeof v === 'string' && /^\d+$/.test(v));
    case 'turn_without_at':
      return all.some((e) => !('at' in e));
    case 'float_integer':
      // The first message_count of the text is the conversation's own.
      return /^\d+\.0$/.test(/"message_count":([^,}]*)/.exec(text)?.[1] ?? '');
    case 'null_list':
      return LISTS.some((f) => d[f] === null);
    case 'missing_optional':
      return !('session_ref' in d) && !('page_url' in d);
    case 'extra_fields':
      return 'sentiment_v2' in d;
    case 'unknown_enum':
      return d.outcome === 'voicemail';
    case 'list_as_object':
      return LISTS.some((f) => d[f] !== null && typeof d[f] === 'object' && !Array.isArray(d[f]));
    case 'bad_date':
      return d.started_at === 'the 3rd of never';
    case 'word_number':
      return d.duration_sec === 'about a minute';
    case 'fractional':
      return typeof d.duration_sec === 'number' && !Number.isInteger(d.duration_sec);
    case 'turn_bad_at':
      return all.some((e) => e.at === 'yesterday');
  }
}

/** A signed recording link without its query (the signature changes every second). */
export function unsigned<T>(v: T): T {
  const d = v as Json;
  // the served link is on the simulator's own port (its recording host): the path names the recording
  if (typeof d.recording_url === 'string') d.recording_url = d.recording_url.replace(/^https?:\/\/[^/]+/, '').replace(/\?.*$/, '');
  return v;
}

/**
 * What a careful client stores for a served list entry or detail: lone surrogates as U+FFFD,
 * numeric strings as numbers, missing optional keys and `at`s as null, null lists as empty,
 * fields the API does not document dropped.
 */
export function clientView(served: Json): Json {
  const d = wellFormedDeep(served) as Json;
  for (const f of ['duration_sec', 'message_count']) if (typeof d[f] === 'string' && /^\d+$/.test(d[f] as string)) d[f] = Number(d[f]);
  for (const f of ['session_ref', 'page_url']) if (!(f in d)) d[f] = null;
  delete d.sentiment_v2;
  for (const f of LISTS) {
    if (!(f in d)) continue;
    if (d[f] === null) d[f] = [];
    for (const e of d[f] as Json[]) {
      if (!('at' in e)) e.at = null;
      delete e.confidence;
      delete e.latency_ms;
      if (f === 'transcript' && !('node_key' in e)) e.node_key = null;
    }
  }
  return unsigned(d);
}
