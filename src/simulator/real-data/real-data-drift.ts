// Type drift for the real-data mode: a conversation served with values whose JSON type or
// shape is not the documented one, each labelled by what a careful client does with it:
// coerce it to the clean value, keep it as it is, or set the conversation aside.

import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import { Rng, hashSeed } from '../random.js';

export const DRIFT_KINDS = [
  'number_string', // duration_sec and/or message_count as a numeric string ("75"), list entry and detail
  'turn_without_at', // one transcript entry without its `at` key
  'float_integer', // message_count written as 12.0 in the JSON text
  'null_list', // transcript, tool_calls or node_path sent as null
  'missing_optional', // session_ref/page_url keys absent, one turn's node_key absent
  'extra_fields', // sentiment_v2 at the top, confidence on each turn, latency_ms on each tool call
  'unknown_enum', // outcome voicemail, one turn's speaker system, one tool call's status timeout
  'list_as_object', // transcript sent as {entries: [...]}
  'bad_date', // started_at "the 3rd of never" (detail only)
  'word_number', // duration_sec "about a minute" (detail only)
  'fractional', // duration_sec 75.5 (detail only)
  'turn_bad_at', // one transcript entry's at = "yesterday"
] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

/** What a careful client does with each kind. */
export const DRIFT_EXPECT: Record<DriftKind, 'exact' | 'coerced' | 'set_aside'> = {
  number_string: 'coerced',
  turn_without_at: 'coerced',
  float_integer: 'exact',
  null_list: 'exact',
  missing_optional: 'exact',
  extra_fields: 'exact',
  unknown_enum: 'exact',
  list_as_object: 'set_aside',
  bad_date: 'set_aside',
  word_number: 'set_aside',
  fractional: 'set_aside',
  turn_bad_at: 'set_aside',
};

type NumberField = 'duration_sec' | 'message_count';
type ListField = 'transcript' | 'tool_calls' | 'node_path';

export interface DriftPlan {
  kinds: DriftKind[];
  /** the fields number_string turns into strings */
  numberFields: NumberField[];
  /** fractions picking entries and lists */
  u: number[];
  sentiment: { score: number; label: string };
}

/** Why these kinds cannot be served together (they would write the same field), or null. */
export function driftConflict(kinds: readonly DriftKind[]): string | null {
  const has = (k: DriftKind): boolean => kinds.includes(k);
  if (has('word_number') && has('fractional')) return 'word_number and fractional both write duration_sec';
  const durationTaken = has('word_number') || has('fractional');
  if (has('number_string') && durationTaken && has('float_integer')) return 'number_string has no field left (duration_sec and message_count are taken)';
  return null;
}

/** 1–3 kinds that can be served together. */
export function drawDriftKinds(rng: Rng): DriftKind[] {
  const n = rng.int(1, 3);
  const order = rng.shuffle([...DRIFT_KINDS]);
  const kinds: DriftKind[] = [];
  for (const k of order) {
    if (kinds.length === n) break;
    if (driftConflict([...kinds, k]) === null) kinds.push(k);
  }
  return kinds;
}

/** The choices made for `kinds` on conversation `idx`; throws when they conflict. */
export function planDrift(seed: number, idx: number, kinds: readonly DriftKind[]): DriftPlan {
  for (const k of kinds) if (!DRIFT_KINDS.includes(k)) throw new Error(`unknown drift kind ${JSON.stringify(k)}`);
  const conflict = driftConflict(kinds);
  if (conflict) throw new Error(`drift kinds ${kinds.join(', ')} conflict: ${conflict}`);
  const rng = new Rng(hashSeed(seed, idx, 0xd71f));
  const free: NumberField[] = [];
  if (!kinds.includes('word_number') && !kinds.includes('fractional')) free.push('duration_sec');
  if (!kinds.includes('float_integer')) free.push('message_count');
  const numberFields = free.length === 2 ? rng.pick<NumberField[]>([['duration_sec'], ['message_count'], free]) : free;
  const u = Array.from({ length: 8 }, () => rng.next());
  const score = rng.int(-100, 100) / 100;
  return { kinds: [...new Set(kinds)], numberFields, u, sentiment: { score, label: score > 0.2 ? 'positive' : score < -0.2 ? 'negative' : 'neutral' } };
}

type Json = Record<string, unknown>;

function numberStrings(served: Json, plan: DriftPlan): void {
  for (const f of plan.numberFields) if (typeof served[f] === 'number') served[f] = String(served[f]);
}

/**
 * Drift on a list entry in place (the kinds that concern its fields); `meant`, when given, is
 * changed where the meant value is not the one served before the drift.
 */
export function driftSummary(served: ConversationSummary, meant: ConversationSummary | null, plan: DriftPlan): void {
  const s = served as unknown as Json;
  const has = (k: DriftKind): boolean => plan.kinds.includes(k);
  if (has('number_string')) numberStrings(s, plan);
  if (has('missing_optional')) {
    delete s.session_ref;
    delete s.page_url;
    if (meant) meant.session_ref = meant.page_url = null;
  }
  if (has('unknown_enum')) {
    served.outcome = 'voicemail';
    if (meant) meant.outcome = 'voicemail';
  }
  if (has('extra_fields')) s.sentiment_v2 = { ...plan.sentiment };
}

/** message_count written with a fraction part (`12.0`): a JSON text edit, JSON.stringify writes 12. */
export function floatMessageCount(json: string): string {
  return json.replace(/"message_count":(\d+)(?=[,}])/, '"message_count":$1.0');
}

function pick<T>(items: readonly T[], u: number): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(u * items.length)];
}

/**
 * Drift on a served detail in place; `meant` (a copy of it before the drift) is changed where
 * the meant value differs. `busy` names lists other mutations wrote into, which null_list
 * leaves alone. Returns the kinds applied (a kind with nothing to act on is left out).
 */
export function driftDetail(served: ConversationDetail, meant: ConversationDetail | null, plan: DriftPlan, busy: readonly ListField[]): DriftKind[] {
  const d = served as unknown as Json;
  const m = meant as unknown as Json | null;
  const has = (k: DriftKind): boolean => plan.kinds.includes(k);
  const applied: DriftKind[] = [];
  const touched = new Set<ListField>(busy);
  const list = (f: ListField): Json[] | null => (Array.isArray(d[f]) ? (d[f] as Json[]) : null);
  const meantList = (f: ListField): Json[] => (m?.[f] as Json[] | undefined) ?? [];
  const turnField: ListField | undefined = (['transcript', 'node_path', 'tool_calls'] as const).find((f) => (list(f)?.length ?? 0) > 0);
  const at = (k: number): number => Math.floor(plan.u[k]! * (turnField ? list(turnField)!.length : 0));

  if (has('number_string') && plan.numberFields.length > 0) {
    numberStrings(d, plan);
    applied.push('number_string');
  }
  if (has('float_integer') && typeof d.message_count === 'number') applied.push('float_integer');
  if (has('turn_without_at') && turnField) {
    delete list(turnField)![at(0)]!.at;
    if (m) meantList(turnField)[at(0)]!.at = null;
    touched.add(turnField);
    applied.push('turn_without_at');
  }
  if (has('turn_bad_at') && turnField) {
    const n = list(turnField)!.length;
    // Another entry than the one without `at`, when there is one.
    const k = has('turn_without_at') && n > 1 ? (at(0) + 1 + Math.floor(plan.u[1]! * (n - 1))) % n : at(1);
    list(turnField)![k]!.at = 'yesterday';
    touched.add(turnField);
    applied.push('turn_bad_at');
  }
  if (has('missing_optional')) {
    delete d.session_ref;
    delete d.page_url;
    if (m) m.session_ref = m.page_url = null;
    const turns = list('transcript');
    if (turns && turns.length > 0) {
      delete turns[at(2) % turns.length]!.node_key;
      if (m) meantList('transcript')[at(2) % turns.length]!.node_key = null;
      touched.add('transcript');
    }
    applied.push('missing_optional');
  }
  if (has('unknown_enum')) {
    d.outcome = 'voicemail';
    if (m) m.outcome = 'voicemail';
    const turns = list('transcript');
    const turn = turns ? pick(turns, plan.u[3]!) : undefined;
    if (turn) turn.speaker = 'system';
    if (turn && m) meantList('transcript')[turns!.indexOf(turn)]!.speaker = 'system';
    const calls = list('tool_calls');
    const call = calls ? pick(calls, plan.u[4]!) : undefined;
    if (call) call.status = 'timeout';
    if (call && m) meantList('tool_calls')[calls!.indexOf(call)]!.status = 'timeout';
    touched.add('transcript').add('tool_calls');
    applied.push('unknown_enum');
  }
  if (has('extra_fields')) {
    d.sentiment_v2 = { ...plan.sentiment };
    list('transcript')?.forEach((turn, i) => (turn.confidence = ((i * 37 + Math.floor(plan.u[5]! * 100)) % 100) / 100));
    list('tool_calls')?.forEach((call, i) => (call.latency_ms = 40 + ((i * 131 + Math.floor(plan.u[6]! * 1000)) % 2000)));
    touched.add('transcript').add('tool_calls');
    applied.push('extra_fields');
  }
  if (has('bad_date')) {
    d.started_at = 'the 3rd of never';
    applied.push('bad_date');
  }
  if (has('word_number')) {
    d.duration_sec = 'about a minute';
    applied.push('word_number');
  }
  if (has('fractional') && typeof d.duration_sec === 'number') {
    d.duration_sec = d.duration_sec + 0.5;
    applied.push('fractional');
  }
  if (has('list_as_object')) {
    const f = (['transcript', 'tool_calls', 'node_path'] as const).find((x) => list(x) !== null);
    if (f) {
      d[f] = { entries: d[f] };
      touched.add(f);
      applied.push('list_as_object');
    }
  }
  if (has('null_list')) {
    const free = (['transcript', 'tool_calls', 'node_path'] as const).filter((f) => list(f) !== null && !touched.has(f));
    const f = pick(free, plan.u[7]!);
    if (f) {
      d[f] = null;
      if (m) m[f] = [];
      applied.push('null_list');
    }
  }
  return DRIFT_KINDS.filter((k) => applied.includes(k));
}
