// How a conversation as the API sends it becomes rows: pure functions, one set of rules for the
// crawl and for `rebuild`. A value is kept as it is, coerced by a rule of COERCIONS when its
// meaning is unambiguous, or the whole detail is set aside with the reason. The rules are
// documented in docs/schema.md ("Data convoduck did not expect").

import { KNOWN_CHANNELS, KNOWN_OUTCOMES } from '../api/types.js';

/** The columns of a `conversations` row that come from the API, as text DuckDB casts (null: empty). */
export interface ConversationFields {
  agent_id: string | null;
  channel: string | null;
  direction: string | null;
  session_ref: string | null;
  page_url: string | null;
  started_at: string | null;
  ended_at: string | null;
  duration_sec: string | null;
  message_count: string | null;
  outcome: string | null;
  summary: string | null;
  /** it has ended_at and outcome */
  is_final: boolean;
}

export interface TurnRow {
  at: string | null;
  speaker: string | null;
  text: string | null;
  node_key: string | null;
}

export interface ToolCallRow {
  at: string | null;
  tool_id: string | null;
  slug: string | null;
  node_key: string | null;
  status: string | null;
  /** JSON text */
  input: string | null;
  output: string | null;
}

export interface VisitRow {
  at: string | null;
  node_key: string | null;
}

export type DriftKind = 'unknown_field' | 'unknown_value' | 'coerced' | 'set_aside';

/** Something in a body the schema did not expect, by path (`transcript[].confidence`). */
export interface Drift {
  path: string;
  kind: DriftKind;
  /** the rule applied, or the unknown value */
  note: string;
}

/** The rules by which a value is coerced (the `note` of a `coerced` drift). */
export const COERCIONS = {
  numericString: 'numeric string → integer',
  scalarToText: 'number or boolean → text',
  loneSurrogate: 'lone UTF-16 surrogate → U+FFFD',
  missingTime: 'missing time → NULL',
  notUtf8: 'byte not UTF-8 → U+FFFD',
} as const;

export interface UsableDetail {
  usable: true;
  fields: ConversationFields;
  turns: TurnRow[];
  toolCalls: ToolCallRow[];
  visits: VisitRow[];
  drift: Drift[];
  /** some value was coerced (the row is not the body's values exactly) */
  coerced: boolean;
  /** the body carries a recording link (see recordingLinkIn) */
  recordingLink: boolean;
}

export interface SetAsideDetail {
  usable: false;
  /** why the body cannot be stored as rows */
  reason: string;
  /** the field the reason is about ('' for the body as a whole) */
  path: string;
  drift: Drift[];
  /** the body carries a recording link (see recordingLinkIn): set aside, its recording is still had */
  recordingLink: boolean;
}

export type NormalisedDetail = UsableDetail | SetAsideDetail;

const CONVERSATION_KEYS = new Set([
  'id', 'agent_id', 'channel', 'direction', 'session_ref', 'page_url', 'started_at', 'ended_at', 'duration_sec',
  'message_count', 'outcome', 'summary', 'transcript', 'tool_calls', 'node_path', 'recording_url',
]);
const TURN_KEYS = new Set(['at', 'speaker', 'text', 'node_key']);
const TOOL_CALL_KEYS = new Set(['at', 'tool_id', 'slug', 'node_key', 'status', 'input_redacted', 'output_redacted']);
const VISIT_KEYS = new Set(['at', 'node_key']);
/** Fields whose every value the spec lists: another value is reported (and stored as it is). */
const CLOSED_VALUES: Record<string, readonly string[]> = {
  channel: KNOWN_CHANNELS,
  outcome: KNOWN_OUTCOMES,
  'transcript[].speaker': ['caller', 'agent'],
};

/** Thrown inside a detail's normalisation: the detail is set aside with this reason. */
class Ambiguous extends Error {
  constructor(
    readonly path: string,
    what: string,
  ) {
    super(path === '' ? what : `${path} ${what}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTime(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value));
}

/** Collects a body's drift (once per path, kind and note) and whether anything was coerced. */
class Reader {
  readonly drift: Drift[] = [];
  private readonly seen = new Set<string>();
  coerced = false;

  /** `strict`: a value that cannot be read is Ambiguous (details); otherwise it reads as null (list entries) */
  constructor(private readonly strict: boolean) {}

  note(path: string, kind: DriftKind, note: string): void {
    if (kind === 'coerced') this.coerced = true;
    const key = `${path}\u0000${kind}\u0000${note}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.drift.push({ path, kind, note });
  }

  fail(path: string, what: string): null {
    if (this.strict) throw new Ambiguous(path, what);
    return null;
  }

  /** Text, well-formed: a lone surrogate (a string cut mid-emoji) becomes U+FFFD. */
  wellFormed(path: string, s: string): string {
    if (s.isWellFormed()) return s;
    this.note(path, 'coerced', COERCIONS.loneSurrogate);
    return s.toWellFormed();
  }

  text(path: string, value: unknown): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value === 'string') return this.wellFormed(path, value);
    if (typeof value === 'number' || typeof value === 'boolean') {
      this.note(path, 'coerced', COERCIONS.scalarToText);
      return String(value);
    }
    return this.fail(path, `is ${Array.isArray(value) ? 'an array' : 'an object'}, not text`);
  }

  /** A value of a field whose values the spec lists: kept as it is, an unlisted one reported. */
  listed(path: string, value: unknown): string | null {
    const text = this.text(path, value);
    const known = CLOSED_VALUES[path];
    if (text !== null && known && !known.includes(text)) this.note(path, 'unknown_value', text);
    return text;
  }

  integer(path: string, value: unknown): string | null {
    if (value === undefined || value === null) return null;
    if (typeof value === 'number') {
      // JSON's 12.0 is the number 12: only a fraction is ambiguous
      return Number.isInteger(value) ? String(value) : this.fail(path, `is ${value}, not a whole number`);
    }
    if (typeof value === 'string') {
      const n = Number(value.trim());
      if (value.trim() !== '' && Number.isInteger(n)) {
        this.note(path, 'coerced', COERCIONS.numericString);
        return String(n);
      }
      return this.fail(path, `is ${JSON.stringify(value.slice(0, 40))}, not a whole number`);
    }
    return this.fail(path, 'is not a number');
  }

  /** A time: kept as text (DuckDB casts it); `required` absent is ambiguous, otherwise absent is NULL. */
  time(path: string, value: unknown, absent: 'null' | 'coerce-null' | 'ambiguous'): string | null {
    if (value === undefined || value === null) {
      if (absent === 'ambiguous') return this.fail(path, 'is missing');
      if (absent === 'coerce-null') this.note(path, 'coerced', COERCIONS.missingTime);
      return null;
    }
    if (typeof value === 'string' && isTime(value)) return value;
    return this.fail(path, 'is not an ISO 8601 date-time');
  }

  unknownKeys(path: string, record: Record<string, unknown>, known: ReadonlySet<string>): void {
    for (const key of Object.keys(record)) {
      if (!known.has(key)) this.note(path === '' ? key : `${path}.${key}`, 'unknown_field', typeof record[key]);
    }
  }

  /** A JSON payload as text, its strings (and keys) well-formed. */
  payload(path: string, value: unknown): string | null {
    if (value === undefined || value === null) return null;
    return JSON.stringify(this.wellFormedDeep(path, value));
  }

  private wellFormedDeep(path: string, value: unknown): unknown {
    if (typeof value === 'string') return this.wellFormed(path, value);
    if (Array.isArray(value)) return value.map((v) => this.wellFormedDeep(path, v));
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.wellFormed(path, k)] = this.wellFormedDeep(path, v);
      return out;
    }
    return value;
  }

  /** A list field's entries (null or absent: none, as the spec says of null). */
  entries(path: string, value: unknown, known: ReadonlySet<string>): Record<string, unknown>[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.fail(path, `is ${isObject(value) ? 'an object' : typeof value}, not a list`);
      return [];
    }
    const out: Record<string, unknown>[] = [];
    for (const entry of value) {
      if (!isObject(entry)) {
        this.fail(`${path}[]`, 'holds an entry that is not an object');
        continue;
      }
      this.unknownKeys(`${path}[]`, entry, known);
      out.push(entry);
    }
    return out;
  }
}

function fieldsOf(c: Record<string, unknown>, r: Reader, startedAt: 'null' | 'ambiguous'): ConversationFields {
  const fields: ConversationFields = {
    agent_id: r.text('agent_id', c.agent_id),
    channel: r.listed('channel', c.channel),
    direction: r.text('direction', c.direction),
    session_ref: r.text('session_ref', c.session_ref),
    page_url: r.text('page_url', c.page_url),
    started_at: r.time('started_at', c.started_at, startedAt),
    ended_at: r.time('ended_at', c.ended_at, 'null'),
    duration_sec: r.integer('duration_sec', c.duration_sec),
    message_count: r.integer('message_count', c.message_count),
    outcome: r.listed('outcome', c.outcome),
    summary: r.text('summary', c.summary),
    is_final: false,
  };
  fields.is_final = fields.ended_at !== null && fields.outcome !== null;
  return fields;
}

/**
 * A list entry's fields. Never fails: a value that cannot be read is NULL, as the detail (which
 * is what the conversation's row is derived from once fetched) decides what is set aside.
 */
export function normaliseSummary(entry: unknown): ConversationFields {
  return fieldsOf(isObject(entry) ? entry : {}, new Reader(false), 'null');
}

/**
 * Whether a parsed detail body carries a recording link: `data.recording_url` is a string, as the
 * crawl downloads it. Decided here, as the body is read, and stored beside it
 * (raw_conversations.has_recording_link): no reader parses a stored body again.
 */
export function recordingLinkIn(body: unknown): boolean {
  return isObject(body) && isObject(body.data) && typeof body.data.recording_url === 'string';
}

/** recordingLinkIn of a stored body's text: text that is not JSON carries none. */
export function recordingLinkInText(text: string): boolean {
  try {
    return recordingLinkIn(JSON.parse(text));
  } catch {
    return false;
  }
}

/** A detail response body (`{data: …}`) of conversation `id`: its rows, or why it is set aside. */
export function normaliseDetail(body: unknown, id: string): NormalisedDetail {
  const r = new Reader(true);
  const recordingLink = recordingLinkIn(body);
  try {
    if (!isObject(body) || !isObject(body.data)) throw new Ambiguous('', 'body has no `data` object');
    const c = body.data;
    if (c.id !== id) throw new Ambiguous('id', `is ${JSON.stringify(c.id)}, expected ${id}`);
    r.unknownKeys('', c, CONVERSATION_KEYS);
    const fields = fieldsOf(c, r, 'ambiguous');
    const turns = r.entries('transcript', c.transcript, TURN_KEYS).map((t) => ({
      at: r.time('transcript[].at', t.at, 'coerce-null'),
      speaker: r.listed('transcript[].speaker', t.speaker),
      text: r.text('transcript[].text', t.text),
      node_key: r.text('transcript[].node_key', t.node_key),
    }));
    const toolCalls = r.entries('tool_calls', c.tool_calls, TOOL_CALL_KEYS).map((t) => ({
      at: r.time('tool_calls[].at', t.at, 'coerce-null'),
      tool_id: r.text('tool_calls[].tool_id', t.tool_id),
      slug: r.text('tool_calls[].slug', t.slug),
      node_key: r.text('tool_calls[].node_key', t.node_key),
      status: r.text('tool_calls[].status', t.status),
      input: r.payload('tool_calls[].input_redacted', t.input_redacted),
      output: r.payload('tool_calls[].output_redacted', t.output_redacted),
    }));
    const visits = r.entries('node_path', c.node_path, VISIT_KEYS).map((v) => ({
      at: r.time('node_path[].at', v.at, 'coerce-null'),
      node_key: r.text('node_path[].node_key', v.node_key),
    }));
    return { usable: true, fields, turns, toolCalls, visits, drift: r.drift, coerced: r.coerced, recordingLink };
  } catch (err) {
    if (!(err instanceof Ambiguous)) throw err;
    return { usable: false, reason: err.message, path: err.path, drift: r.drift, recordingLink };
  }
}

/** A detail from its body text: text that is not JSON is set aside with the parser's reason. */
export function normaliseDetailText(text: string, id: string): NormalisedDetail {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { usable: false, reason: `body is not valid JSON (${err instanceof Error ? err.message : String(err)})`, path: '', drift: [], recordingLink: false };
  }
  return normaliseDetail(body, id);
}

/** A JSON escape of a UTF-16 surrogate half: how a lone one reaches a body (UTF-8 cannot carry it). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/** A parsed JSON value with every string (keys too) well-formed: Reader.wellFormed's rule, everywhere. */
function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), wellFormedValue(v)]));
  return value;
}

/**
 * JSON text DuckDB's JSON reader takes, from a body as received: the text itself, or when a string
 * of it holds a lone UTF-16 surrogate (which that reader refuses and JSON.parse takes), the value
 * written again with each lone one as U+FFFD. Text that is not JSON is returned as it is.
 */
export function wellFormedJson(text: string): string {
  if (!SURROGATE_ESCAPE.test(text) && text.isWellFormed()) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  const fixed = JSON.stringify(wellFormedValue(value));
  // surrogate pairs only: DuckDB reads the text as it is
  return fixed === JSON.stringify(value) ? text : fixed;
}

/** The detail read from a body whose bytes were not all UTF-8: those read as U+FFFD, a coercion. */
export function readAsNotUtf8(n: NormalisedDetail): NormalisedDetail {
  if (!n.usable) return n;
  return { ...n, coerced: true, drift: [...n.drift, { path: '', kind: 'coerced', note: COERCIONS.notUtf8 }] };
}

/** What a stored detail is: its values exactly, some coerced by a rule, or set aside. */
export type DetailState = 'exact' | 'coerced' | 'set_aside';

export function detailState(n: NormalisedDetail): DetailState {
  return !n.usable ? 'set_aside' : n.coerced ? 'coerced' : 'exact';
}

/** A detail set aside for a reason outside its body (it could not be written); `recordingLink` as its body said. */
export function setAsideUnstorable(reason: string, recordingLink = false): SetAsideDetail {
  return { usable: false, reason, path: '', drift: [], recordingLink };
}
