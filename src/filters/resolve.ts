// The command's filters made bindable: the time zone's canonical name, and a calendar-day
// --since/--until turned into the instant it starts in --tz (DuckDB's ICU does the zone arithmetic).

import { LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { InvalidInputError } from '../shared/errors.js';
import { formatInstant } from '../shared/time.js';
import { limitToSpaces } from '../store/space-scope.js';
import { numberParams, type ReportFilters, type ResolvedParams, type TimeBound } from './params.js';

/** The time zone's canonical IANA name (case-insensitive match), or an InvalidInputError. */
export async function resolveTimeZone(connection: DuckDBConnection, tz: string): Promise<string> {
  const reader = await connection.runAndReadAll(
    `SELECT name FROM pg_timezone_names() WHERE lower(name) = lower($tz) ORDER BY (name = $tz) DESC, name LIMIT 1`,
    { tz },
    { tz: VARCHAR },
  );
  const name = reader.getRowObjectsJS()[0]?.name;
  if (typeof name !== 'string') {
    throw new InvalidInputError(
      `--tz ${JSON.stringify(tz)} is not a known time zone: use an IANA name such as UTC, Europe/Berlin or America/New_York`,
    );
  }
  return name;
}

/** The filters as they are bound: defaults filled in, days resolved, the zone canonical. */
export async function resolveParams(connection: DuckDBConnection, filters: ReportFilters): Promise<ResolvedParams> {
  // --space first: an --agent must then be one of those spaces'
  await limitToSpaces(connection, filters.spaces ?? []);
  const tz = await resolveTimeZone(connection, filters.tz ?? 'UTC');
  const from = filters.from ? await resolveBound(connection, filters.from, tz) : null;
  const to = filters.to ? await resolveBound(connection, filters.to, tz) : null;
  if (from && to && from.getTime() >= to.getTime()) {
    throw new InvalidInputError(
      `--since (${formatInstant(from)}) must be before --until (${formatInstant(to)}): --since is inclusive, --until exclusive`,
    );
  }
  const agents = filters.agents && filters.agents.length > 0 ? [...new Set(filters.agents)] : null;
  if (agents) await checkAgents(connection, agents);
  return {
    from,
    to,
    agents,
    channel: filters.channel ?? null,
    tz,
    ...numberParams(filters),
    search: filters.search ?? null,
  };
}

/**
 * Every --agent must be an agent the database knows (in `agents`, or on a conversation): a
 * mistyped id would otherwise give empty reports that look like a quiet period.
 */
async function checkAgents(connection: DuckDBConnection, agents: readonly string[]): Promise<void> {
  const reader = await connection.runAndReadAll(
    `SELECT id FROM agents WHERE id IN (SELECT unnest($ids))
     UNION SELECT agent_id FROM conversations WHERE agent_id IN (SELECT unnest($ids))`,
    { ids: listValue([...agents]) },
    { ids: LIST(VARCHAR) },
  );
  const known = new Set(reader.getRowObjectsJS().map((r) => String(r.id)));
  const unknown = agents.filter((a) => !known.has(a));
  if (unknown.length === 0) return;
  const which = unknown.map((a) => JSON.stringify(a)).join(', ');
  throw new InvalidInputError(
    `--agent ${which} ${unknown.length === 1 ? 'is not an agent' : 'are not agents'} in the database: ` +
      `list the agents with convoduck query "SELECT id, name FROM agents ORDER BY name"`,
  );
}

/** A calendar day becomes midnight in `tz` (DuckDB's ICU does the zone arithmetic). */
async function resolveBound(connection: DuckDBConnection, bound: TimeBound, tz: string): Promise<Date> {
  if ('instant' in bound) return bound.instant;
  const sql =
    'localDate' in bound
      ? `SELECT epoch_ms(timezone($tz, $day::DATE::TIMESTAMP)) AS ms`
      : `SELECT epoch_ms(timezone($tz, (timezone($tz, $now::TIMESTAMPTZ)::DATE - $days::INTEGER)::TIMESTAMP)) AS ms`;
  const values: Record<string, DuckDBValue> =
    'localDate' in bound
      ? { tz, day: bound.localDate }
      : { tz, now: bound.now.toISOString(), days: bound.localDaysAgo };
  const reader = await connection.runAndReadAll(sql, values);
  return new Date(Number(reader.getRowObjectsJS()[0]!.ms));
}
