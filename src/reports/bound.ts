// Running a statement with named parameters (`$from`, `$tz`, ...): DuckDB says which names a
// statement uses, and only those are bound (it rejects extra ones); a name the runner does not
// provide is the author's error.

import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResult, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { QueryError } from '../shared/errors.js';
import { PARAM_NAMES, type ParamName } from '../filters/params.js';

/** Runs one statement, binding only the parameters it uses; `count` is COPY's row count. */
export async function runBound(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
): Promise<{ count: number }> {
  const prepared = await prepareBound(connection, sql, values, types);
  try {
    const reader = await prepared.runAndReadAll();
    const first = reader.getRowObjectsJS()[0];
    return { count: first && 'Count' in first ? Number(first.Count) : 0 };
  } finally {
    prepared.destroySync();
  }
}

/** Runs one SELECT as runBound does and hands its streaming result to `read`. */
export async function streamBound<T>(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
  read: (result: DuckDBResult) => Promise<T>,
): Promise<T> {
  const prepared = await prepareBound(connection, sql, values, types);
  try {
    return await read(await prepared.stream());
  } finally {
    prepared.destroySync();
  }
}

async function prepareBound(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
): Promise<DuckDBPreparedStatement> {
  const prepared = await connection.prepare(sql);
  const used = parameterNames(prepared);
  try {
    prepared.bind(pick(values, used), pick(types, used));
  } catch (err) {
    prepared.destroySync();
    throw err;
  }
  return prepared;
}

/** The `$names` a prepared statement uses, checked against PARAM_NAMES (`what` names the file in the error). */
export function reportParameters(prepared: DuckDBPreparedStatement, what: string): ParamName[] {
  const params = parameterNames(prepared);
  const unknown = params.filter((p) => !(PARAM_NAMES as readonly string[]).includes(p));
  if (unknown.length > 0) {
    throw new QueryError(
      `${what} uses unknown parameter ${unknown.map((p) => `$${p}`).join(', ')}: ` +
        `available are ${PARAM_NAMES.map((p) => `$${p}`).join(', ')}`,
    );
  }
  return params as ParamName[];
}

function parameterNames(prepared: { parameterCount: number; parameterName(i: number): string }): string[] {
  const names: string[] = [];
  for (let i = 1; i <= prepared.parameterCount; i++) names.push(prepared.parameterName(i));
  return names;
}

export function pick<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(keys.map((k) => [k, record[k] as T]));
}
