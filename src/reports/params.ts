// The parameters a report can use, bound by name (`$from`, `$agents`, ...) and never pasted
// into SQL. A report is bound only the parameters its SQL mentions (DuckDB says which).

import {
  INTEGER,
  LIST,
  TIMESTAMPTZ,
  VARCHAR,
  listValue,
  timestampTZValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { parseTimeArg } from '../shared/time.js';

/**
 * A `--from`/`--to` bound. A calendar day (`2026-11-01`, `today`, `yesterday`) means midnight
 * in the report's time zone (--tz), so day buckets start where the range starts; any other
 * form (a date-time, `7d`, `24h`, `now`) is an exact instant.
 */
export type TimeBound =
  | { instant: Date }
  | { localDate: string }
  | { localDaysAgo: number; now: Date };

/**
 * The whole-number parameters reports may use, declared once: the command's flag (`--slow-seconds`
 * sets `slowSeconds`, bound as `$slow_seconds`), its default and its help text all come from here,
 * so a report that needs a new one adds a line to this list and nothing else in TypeScript.
 */
export const NUMBER_PARAMS = [
  { key: 'earlySeconds', name: 'early_seconds', flag: '--early-seconds', defaultValue: 10,
    help: 'early_hangups, agent_leaderboard: a voice hang-up within this many seconds is early' },
  { key: 'minSample', name: 'min_sample', flag: '--min-sample', defaultValue: 20,
    help: 'agent_leaderboard: flag agents with fewer conversations' },
  { key: 'days', name: 'days', flag: '--days', defaultValue: 7,
    help: 'agent_changes: compare the conversations of this many days before and after a change' },
  { key: 'slowSeconds', name: 'slow_seconds', flag: '--slow-seconds', defaultValue: 10,
    help: 'response_times, handoff_precursors: an answer that took longer than this many seconds is slow' },
  { key: 'loopVisits', name: 'loop_visits', flag: '--loop-visits', defaultValue: 2,
    help: 'loops, handoff_precursors: a conversation that enters a node more than this many times loops' },
  { key: 'lastTurns', name: 'last_turns', flag: '--last-turns', defaultValue: 4,
    help: 'handoff_precursors: how many turns before the end to look at' },
] as const;

type NumberParam = (typeof NUMBER_PARAMS)[number];
export type NumberParamKey = NumberParam['key'];

export const DEFAULT_EARLY_SECONDS = numberDefault('earlySeconds');
export const DEFAULT_MIN_SAMPLE = numberDefault('minSample');
export const DEFAULT_DAYS = numberDefault('days');

function numberDefault(key: NumberParamKey): number {
  return NUMBER_PARAMS.find((p) => p.key === key)!.defaultValue;
}

export interface ReportFilters extends Partial<Record<NumberParamKey, number>> {
  /** inclusive */
  from?: TimeBound | null;
  /** exclusive */
  to?: TimeBound | null;
  /** agent ids; empty or absent means every agent */
  agents?: readonly string[];
  channel?: string | null;
  /** IANA time zone for day, week and hour buckets; default UTC */
  tz?: string;
  /** only these spaces: every table is read as if the database held only their rows (space-scope.ts) */
  spaces?: readonly string[];
}

/** The filters after resolution: what is bound. */
export interface ResolvedParams extends Record<NumberParamKey, number> {
  from: Date | null;
  to: Date | null;
  agents: string[] | null;
  channel: string | null;
  tz: string;
}

/** Every whole-number parameter: the value given, else its default. */
export function numberParams(filters: ReportFilters): Record<NumberParamKey, number> {
  return Object.fromEntries(NUMBER_PARAMS.map((p) => [p.key, filters[p.key] ?? p.defaultValue])) as Record<NumberParamKey, number>;
}

/** Names a report may use as `$name`. */
export type ParamName = 'from' | 'to' | 'agents' | 'channel' | 'tz' | NumberParam['name'];
export const PARAM_NAMES: readonly ParamName[] = ['from', 'to', 'agents', 'channel', 'tz', ...NUMBER_PARAMS.map((p) => p.name)];

export function bindValues(p: ResolvedParams): Record<ParamName, DuckDBValue> {
  const numbers = Object.fromEntries(NUMBER_PARAMS.map((n) => [n.name, p[n.key]]));
  return {
    from: p.from ? timestampTZValue(BigInt(p.from.getTime()) * 1000n) : null,
    to: p.to ? timestampTZValue(BigInt(p.to.getTime()) * 1000n) : null,
    agents: p.agents ? listValue(p.agents) : null,
    channel: p.channel,
    tz: p.tz,
    ...numbers,
  } as Record<ParamName, DuckDBValue>;
}

export const BIND_TYPES = {
  from: TIMESTAMPTZ,
  to: TIMESTAMPTZ,
  agents: LIST(VARCHAR),
  channel: VARCHAR,
  tz: VARCHAR,
  ...Object.fromEntries(NUMBER_PARAMS.map((n) => [n.name, INTEGER])),
} as Record<ParamName, DuckDBType>;

/**
 * Parses a `--from`/`--to` value: a bare date, `today` or `yesterday` is a day in --tz (resolved
 * by the runner); everything else goes through parseTimeArg (and its error message).
 */
export function parseReportTime(flag: string, value: string, now: Date = new Date()): TimeBound {
  const text = value.trim();
  const lower = text.toLowerCase();
  if (lower === 'today') return { localDaysAgo: 0, now };
  if (lower === 'yesterday') return { localDaysAgo: 1, now };
  const instant = parseTimeArg(flag, value, now); // validates every form
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return { localDate: text };
  return { instant };
}
