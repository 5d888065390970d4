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
import { NUMBER_PARAMS, type NumberParam, type NumberParamKey } from './number-params.js';

export { NUMBER_PARAMS, type NumberParamKey };

/**
 * A `--since`/`--until` bound. A calendar day (`2026-11-01`, `today`, `yesterday`) means midnight
 * in the report's time zone (--tz), so day buckets start where the range starts; any other
 * form (a date-time, `7d`, `24h`, `now`) is an exact instant.
 */
export type TimeBound =
  | { instant: Date }
  | { localDate: string }
  | { localDaysAgo: number; now: Date };

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
  /** search_matches: the saved query whose matching turns are counted (null: none, no rows) */
  search?: string | null;
}

/** The filters after resolution: what is bound. */
export interface ResolvedParams extends Record<NumberParamKey, number> {
  from: Date | null;
  to: Date | null;
  agents: string[] | null;
  channel: string | null;
  tz: string;
  search: string | null;
}

/** Every whole-number parameter: the value given, else its default. */
export function numberParams(filters: ReportFilters): Record<NumberParamKey, number> {
  return Object.fromEntries(NUMBER_PARAMS.map((p) => [p.key, filters[p.key] ?? p.defaultValue])) as Record<NumberParamKey, number>;
}

/** Names a report may use as `$name`. */
export type ParamName = 'from' | 'to' | 'agents' | 'channel' | 'tz' | 'search' | NumberParam['name'];
export const PARAM_NAMES: readonly ParamName[] = ['from', 'to', 'agents', 'channel', 'tz', 'search', ...NUMBER_PARAMS.map((p) => p.name)];

export function bindValues(p: ResolvedParams): Record<ParamName, DuckDBValue> {
  const numbers = Object.fromEntries(NUMBER_PARAMS.map((n) => [n.name, p[n.key]]));
  return {
    from: p.from ? timestampTZValue(BigInt(p.from.getTime()) * 1000n) : null,
    to: p.to ? timestampTZValue(BigInt(p.to.getTime()) * 1000n) : null,
    agents: p.agents ? listValue(p.agents) : null,
    channel: p.channel,
    tz: p.tz,
    search: p.search,
    ...numbers,
  } as Record<ParamName, DuckDBValue>;
}

export const BIND_TYPES = {
  from: TIMESTAMPTZ,
  to: TIMESTAMPTZ,
  agents: LIST(VARCHAR),
  channel: VARCHAR,
  tz: VARCHAR,
  search: VARCHAR,
  ...Object.fromEntries(NUMBER_PARAMS.map((n) => [n.name, INTEGER])),
} as Record<ParamName, DuckDBType>;

/**
 * Parses a `--since`/`--until` value: a bare date, `today` or `yesterday` is a day in --tz (resolved
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
