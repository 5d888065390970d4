// The check's timestamps finding: how the server writes its timestamps (zone, fractions of a
// second) and, with the clock reading, how its clock stands against this machine's. Pure.

import { clockClauses, type ClockSeen } from './clock-finding.js';
import { count, isObject, type Finding } from './findings.js';

/** utc: ends in Z; offset: ends in ±hh:mm; local: no zone at all (not an instant); unreadable: not a date-time sync reads. */
export type TimestampZone = 'utc' | 'offset' | 'local' | 'unreadable';

export interface TimestampShape {
  zone: TimestampZone;
  /** digits after the decimal point of the seconds (0 when none) */
  fractionDigits: number;
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?$/;

/** How a timestamp string is written, as far as reading it as an instant goes. */
export function classifyTimestamp(text: string): TimestampShape {
  const m = ISO_DATE_TIME.exec(text);
  if (!m) return { zone: 'unreadable', fractionDigits: 0 };
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  // Date.parse rolls 2026-02-30 over to March; a calendar date that does not exist is unreadable.
  const realDay = day.getUTCFullYear() === Number(y) && day.getUTCMonth() === Number(mo) - 1 && day.getUTCDate() === Number(d);
  if (!realDay || Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59) return { zone: 'unreadable', fractionDigits: 0 };
  const fractionDigits = fraction?.length ?? 0;
  if (zone === undefined) return { zone: 'local', fractionDigits };
  return { zone: zone === 'Z' || zone === 'z' ? 'utc' : 'offset', fractionDigits };
}

/** Every timestamp a list page and a detail show (started_at, ended_at, and each entry's `at`). */
export function collectTimestamps(listItems: readonly unknown[], detail: unknown): string[] {
  const out: string[] = [];
  const take = (record: unknown, fields: readonly string[]): void => {
    if (!isObject(record)) return;
    for (const f of fields) if (typeof record[f] === 'string') out.push(record[f]);
  };
  for (const item of listItems) take(item, ['started_at', 'ended_at']);
  const data = isObject(detail) ? detail.data : undefined;
  take(data, ['started_at', 'ended_at']);
  if (isObject(data)) {
    for (const list of ['transcript', 'tool_calls', 'node_path']) {
      const entries = data[list];
      if (Array.isArray(entries)) for (const e of entries) take(e, ['at']);
    }
  }
  return out;
}

/**
 * How the server writes its timestamps, and (given `clock`) how its clock and its newest
 * conversation stand against this machine's: a skew over a minute is a warning (a sync lists on the
 * server's times and loses nothing, but the server's times are off).
 */
export function judgeTimestamps(examples: readonly string[], clock?: ClockSeen): Finding {
  const finding = judgeTimestampForms(examples);
  if (!clock) return finding;
  const values = { ...finding.values, clockSkewSeconds: clock.skewSeconds, newestAheadSeconds: clock.newestAheadSeconds };
  const off = clockClauses(clock);
  if (off.length === 0 || finding.status === 'fail') return { ...finding, values };
  const message = `${finding.status === 'skip' ? 'timestamps' : finding.message}; ${off.join('; ')} (sync lists on the server's times)`;
  return { ...finding, status: 'warn', message, values };
}

function judgeTimestampForms(examples: readonly string[]): Finding {
  const counts: Record<TimestampZone, number> = { utc: 0, offset: 0, local: 0, unreadable: 0 };
  const firstOf: Partial<Record<TimestampZone, string>> = {};
  let maxFraction = 0;
  let withFraction = 0;
  for (const text of examples) {
    const shape = classifyTimestamp(text);
    counts[shape.zone]++;
    firstOf[shape.zone] ??= text;
    if (shape.fractionDigits > 0) withFraction++;
    maxFraction = Math.max(maxFraction, shape.fractionDigits);
  }
  const values = {
    timestampsSeen: examples.length,
    timestampZones: counts,
    timestampExamples: firstOf,
    fractionDigits: maxFraction,
  };
  const name = 'timestamps';
  if (examples.length === 0) return { status: 'skip', name, message: 'timestamps: none to look at (no conversation listed)', values };
  if (counts.unreadable > 0) {
    return {
      status: 'fail',
      name,
      message: `timestamps: ${count(counts.unreadable)} of ${count(examples.length)} are not ISO 8601 date-times (e.g. ${JSON.stringify(firstOf.unreadable)}): a sync records such conversations as errors`,
      values,
    };
  }
  if (counts.local > 0) {
    return {
      status: 'fail',
      name,
      message: `timestamps: ${count(counts.local)} of ${count(examples.length)} have no UTC offset (e.g. ${firstOf.local}), so they cannot be read as instants: times in the database would depend on the machine's time zone`,
      values,
    };
  }
  const zones =
    counts.utc > 0 && counts.offset > 0
      ? `ISO 8601, in UTC (Z) and with offsets (e.g. ${firstOf.utc}, ${firstOf.offset})`
      : counts.utc > 0
        ? `ISO 8601 in UTC (e.g. ${firstOf.utc})`
        : `ISO 8601 with offsets (e.g. ${firstOf.offset})`;
  const fractions =
    maxFraction === 0
      ? 'no'
      : `yes, on ${count(withFraction)} of ${count(examples.length)}, up to ${maxFraction} digits${maxFraction > 6 ? ' (the database keeps microseconds)' : ''}`;
  return { status: 'ok', name, message: `timestamps: ${zones}, fractions of a second: ${fractions}`, values };
}
