// What a notification says, for a person paged at night: what, where, how bad and compared with
// what, in words, with the counts behind a rate. Pure: the facts of one alert in, sentences and
// figures as text out; every format (formats/) builds its body from these.

import { createHash } from 'node:crypto';
import type { Period } from './periods.js';
import type { GroupLabels } from './values.js';

/** Everything known of one alert's notification, as numbers and names. */
export interface AlertFacts {
  status: 'firing' | 'resolved';
  rule: string;
  kind: 'threshold' | 'change' | 'anomaly' | 'freshness';
  /** warn or error: the level of its latest firing period */
  level: string;
  description: string;
  labels: GroupLabels;
  /** the report and column judged; null for freshness */
  report: string | null;
  column: string | null;
  /** freshness: what is counted since (conversations or sync) */
  freshnessOf: 'conversations' | 'sync' | null;
  /** the column is a share (0..1), shown as a percentage */
  isRate: boolean;
  /** the rule's volume column (the count behind a rate) and its value; null without one */
  volumeColumn: string | null;
  volume: number | null;
  /** the count the rate is of volume (rate × volume when the volume is the rate's denominator); null when unknown */
  count: number | null;
  period: Period;
  /** the period the figures are of: the latest firing one, or for a resolved alert the one found ok */
  periodStart: Date;
  periodEnd: Date;
  /** null: the group had no row in that period */
  value: number | null;
  /** the baseline of a change, the mean of an anomaly, else the usual value of the group's ok periods */
  expected: number | null;
  /** the bound crossed (the episode's, for a resolved alert) */
  bound: number | null;
  /** which side of the bound the firing value went: above or below it */
  side: 'above' | 'below';
  firingSince: Date;
  resolvedAt: Date | null;
  /** the page or report showing the numbers; null when none is set */
  link: string | null;
  runbookUrl: string | null;
  /** when this run took the figures (the notification's time) */
  detectedAt: Date;
  /** the same for the firing and the resolved notification of one episode's alert */
  fingerprint: string;
}

/** An alert's identity across its notifications: its rule and group. */
export function fingerprintOf(rule: string, groupKey: string): string {
  return createHash('sha256').update(`${rule}\0${groupKey}`).digest('hex').slice(0, 16);
}

/** The group in words: names before ids, the space in parentheses. `Order backend (acme-prod)`. */
export function whereText(labels: GroupLabels): string {
  const entries = Object.entries(labels).filter((e): e is [string, string] => e[1] !== null && e[1] !== '');
  const named = new Set(entries.filter(([k]) => k.endsWith('_name')).map(([k]) => k.slice(0, -'_name'.length)));
  const parts = entries.filter(([k]) => k !== 'space' && !(k.endsWith('_id') && named.has(k.slice(0, -'_id'.length)))).map(([, v]) => v);
  const space = labels.space ?? null;
  if (parts.length === 0) return space ?? 'all spaces';
  return space === null ? parts.join(', ') : `${parts.join(', ')} (${space})`;
}

/** A figure as a person reads it: whole numbers whole, others to three significant digits at most. */
export function figure(v: number): string {
  if (Number.isInteger(v)) return String(v);
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return String(Number(v.toFixed(digits)));
}

export function percent(share: number): string {
  const p = share * 100;
  return `${Number(p.toFixed(Math.abs(p) >= 10 || Number.isInteger(p) ? 0 : 1))}%`;
}

/** A value in the column's own terms: a percentage for a rate, seconds, hours, or the bare figure. */
export function valueText(f: Pick<AlertFacts, 'isRate' | 'column' | 'kind'>, v: number | null): string {
  if (v === null) return '(none)';
  if (f.kind === 'freshness') return `${figure(v)} hours`;
  if (f.isRate) return percent(v);
  if (f.column !== null && /_(sec|seconds)$/.test(f.column)) return `${figure(v)} s`;
  return figure(v);
}

const words = (column: string) => column.replace(/_(sec|seconds)$/, '').replaceAll('_', ' ');

export function periodText(period: Period, start: Date): string {
  const day = start.toISOString().slice(0, 10);
  if (period === 'day') return `on ${day}`;
  if (period === 'week') return `in the week from ${day}`;
  return `in the hour from ${day} ${start.toISOString().slice(11, 16)} UTC`;
}

/** An instant of a period as a person reads it: `2026-11-23` for a day or week, `2026-11-23 07:00 UTC` for an hour. */
export function instantText(period: Period, at: Date): string {
  const iso = at.toISOString();
  return period === 'hour' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : iso.slice(0, 10);
}

/** The measured part: `failure rate 60% (12 of 20 calls)`, `2 conversations`, `p90 75 s (40 answers)`. */
function measured(f: AlertFacts): string {
  if (f.kind === 'freshness') {
    const what = f.freshnessOf === 'sync' ? 'no successful sync' : 'no new conversation';
    return f.value === null ? `${what} ever` : `${what} for ${valueText(f, f.value)}`;
  }
  const column = f.column!;
  const volume = f.volumeColumn === null || f.volume === null ? '' : f.count !== null ? ` (${figure(f.count)} of ${figure(f.volume)} ${words(f.volumeColumn)})` : ` (${figure(f.volume)} ${words(f.volumeColumn)})`;
  if (f.value === null) return `no ${words(column)} to judge`;
  if (f.isRate || /_(sec|seconds)$/.test(column)) return `${words(column)} ${valueText(f, f.value)}${volume}`;
  return `${figure(f.value)} ${words(column)}${volume}`;
}

/** How far from usual: `81% below usual` for a count or a time (a rate's change of a rate would mislead). */
function distance(f: AlertFacts): string {
  if (f.isRate || f.value === null || f.expected === null || f.expected === 0 || f.kind === 'freshness') return '';
  const change = (f.value - f.expected) / Math.abs(f.expected);
  if (Math.abs(change) < 0.005) return '';
  return ` (${percent(Math.abs(change))} ${change < 0 ? 'below' : 'above'} usual)`;
}

/** `error above 60%`: the level and the bound crossed, in the direction the value went past it. */
function boundText(f: AlertFacts): string {
  if (f.bound === null) return f.level;
  if (f.kind === 'freshness') return `${f.level} from ${valueText(f, f.bound)}`;
  return `${f.level} ${f.side} ${valueText(f, f.bound)}`;
}

/**
 * The one line: `Order backend (acme-prod): failure rate 60% (12 of 20 calls) on 2026-11-23; usually 16%; error above 60%`.
 * Resolved: `Resolved: … on 2026-11-24; usually 16%; was error above 60% since 2026-11-23`.
 */
export function summaryText(f: AlertFacts): string {
  const when = f.kind === 'freshness' ? `at ${f.periodEnd.toISOString().slice(0, 16).replace('T', ' ')} UTC` : periodText(f.period, f.periodStart);
  const usual = f.expected === null || f.kind === 'freshness' ? '' : `; usually ${valueText(f, f.expected)}`;
  const head = `${whereText(f.labels)}: ${measured(f)} ${when}${distance(f)}${usual}`;
  if (f.status === 'firing') return `${head}; ${boundText(f)}`;
  const since = periodText(f.period, f.firingSince).replace(/^(on|in the) /, '');
  return `Resolved: ${head}; was ${boundText(f)} since ${since}`;
}

/** The facts as name → text, for annotations and details: the figures in the column's terms. */
export function figures(f: AlertFacts): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (k: string, v: string | null) => {
    if (v !== null && v !== '') out[k] = v;
  };
  put('value', f.value === null ? null : valueText(f, f.value));
  put('expected', f.expected === null ? null : valueText(f, f.expected));
  put('bound', f.bound === null ? null : valueText(f, f.bound));
  put('volume', f.volume === null ? null : `${figure(f.volume)}${f.volumeColumn ? ` ${f.volumeColumn}` : ''}`);
  put('count', f.count === null ? null : figure(f.count));
  put('period', `${f.period} ${f.periodStart.toISOString()} – ${f.periodEnd.toISOString()}`);
  put('firing_since', f.firingSince.toISOString());
  put('resolved_at', f.resolvedAt === null ? null : f.resolvedAt.toISOString());
  put('measure', f.kind === 'freshness' ? `hours since the last ${f.freshnessOf === 'sync' ? 'successful sync' : 'conversation'}` : `${f.column} of report ${f.report}`);
  return out;
}

/** Cuts `text` to at most `max` UTF-16 units (no pair split), ending in `…` when cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const ch of text) {
    if (out.length + ch.length > max - 1) break;
    out += ch;
  }
  return `${out}…`;
}
