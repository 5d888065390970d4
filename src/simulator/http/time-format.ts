// Renders the simulator's timestamps at serving time in one of the forms "ISO 8601 date-time
// with a UTC offset" (spec conventions) allows, always for the same instant:
//   as-generated     as the dataset holds them (mostly `Z`, agents/tools `+00:00`)
//   z                2026-11-01T08:00:00Z
//   offset           local time with a non-zero offset, one per record: 2026-11-01T13:30:00+05:30
//   fraction-z       2026-11-01T08:00:00.123000Z (microseconds; the instant is whole milliseconds)
//   fraction-offset  2026-11-01T13:30:00.123000+05:30
// z and offset add milliseconds (.123) only when the instant has them, so no instant is rounded.

import type { ConversationDetail, ConversationSummary } from '../../api/types.js';
import { hashString } from '../random.js';

export const TIME_FORMATS = ['as-generated', 'z', 'offset', 'fraction-z', 'fraction-offset'] as const;
export type TimeFormat = (typeof TIME_FORMATS)[number];

/** Offsets (minutes) the offset forms pick from: halves, quarters and both signs. */
const OFFSETS_MIN = [330, -480, 120, -210, 540, 345, -300, 60, -600, 780, -60, 630] as const;

/** The fraction forms need instants off the whole second to show anything. */
export function isFractionFormat(format: TimeFormat): boolean {
  return format === 'fraction-z' || format === 'fraction-offset';
}

/** The non-zero offset (minutes) every timestamp of the record with this id is shown in. */
export function offsetFor(recordId: string): number {
  return OFFSETS_MIN[hashString(recordId) % OFFSETS_MIN.length]!;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** `ms` in `format`; `offsetMin` is used by the offset forms. */
export function renderInstant(ms: number, format: Exclude<TimeFormat, 'as-generated'>, offsetMin: number): string {
  const withOffset = format === 'offset' || format === 'fraction-offset';
  const off = withOffset ? offsetMin : 0;
  const local = new Date(ms + off * 60_000).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const millis = local.slice(20, 23);
  let text = local.slice(0, 19);
  if (isFractionFormat(format)) text += `.${millis}000`;
  else if (millis !== '000') text += `.${millis}`;
  if (!withOffset) return `${text}Z`;
  const abs = Math.abs(off);
  return `${text}${off < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** A served timestamp string re-rendered (null and unreadable values stay as they are). */
export function renderTimestamp<T extends string | null>(value: T, format: TimeFormat, offsetMin: number): T {
  if (value === null || format === 'as-generated') return value;
  const ms = Date.parse(value);
  return (Number.isFinite(ms) ? renderInstant(ms, format, offsetMin) : value) as T;
}

/** A copy of a list summary with started_at and ended_at in `format`. */
export function renderSummary(s: ConversationSummary, format: TimeFormat): ConversationSummary {
  if (format === 'as-generated') return s;
  const off = offsetFor(s.id);
  return { ...s, started_at: renderTimestamp(s.started_at, format, off), ended_at: renderTimestamp(s.ended_at, format, off) };
}

/** Re-renders a freshly built detail in place: its own times and every entry's `at`. */
export function renderDetailInPlace(d: ConversationDetail, format: TimeFormat): ConversationDetail {
  if (format === 'as-generated') return d;
  const off = offsetFor(d.id);
  d.started_at = renderTimestamp(d.started_at, format, off);
  d.ended_at = renderTimestamp(d.ended_at, format, off);
  for (const list of [d.transcript, d.tool_calls, d.node_path]) {
    for (const entry of list ?? []) entry.at = renderTimestamp(entry.at, format, off);
  }
  return d;
}

const RECORD_TIME_FIELDS = ['created_at', 'updated_at', 'last_synced_at'] as const;

/** A copy of an agent, tool or connection with its created/updated/synced times in `format`. */
export function renderRecordTimes<T>(record: T, format: TimeFormat): T {
  if (format === 'as-generated') return record;
  const r = record as Record<string, unknown>;
  const off = offsetFor(String(r.id));
  const out: Record<string, unknown> = { ...r };
  for (const field of RECORD_TIME_FIELDS) {
    const v = r[field];
    if (typeof v === 'string') out[field] = renderTimestamp(v, format, off);
  }
  return out as T;
}
