// The shared relations every report reads (filtered_conversations, …): one `.sql` file each in
// the package's sql/shared/, created per `report` run in DuckDB's temp schema (which works on a
// read-only database) before any report runs. Adding one means adding a file there.
//
// A file is named STEP_NAME.sql: files are created in the order of STEP (then name), so a
// relation may read those of lower steps; NAME is what reports read. The file is one SELECT,
// which becomes a temp view NAME (or a temp table, with `Materialized: table` in its header),
// or one CREATE statement for something that is not a relation (the ratio macro), run as written.

import { StatementType, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConvoduckError, QueryError } from '../shared/errors.js';
import { pick, reportParameters, runBound } from './bound.js';
import { defaultSqlDir, sqlFilesIn } from './catalog.js';
import { sqlIdent, sqlText } from '../store/sql.js';
import { BIND_TYPES, type ParamName } from '../filters/params.js';
import { headerField, parseHeader, reportBody } from './sql-file.js';
import { SEARCH_MACRO_SQL } from '../store/search-index/tokenize.js';
import { COERCIONS } from '../store/normalise.js';

/**
 * `coercion_rule(name)`: the note of a coercion rule of the store (COERCIONS), by its name there
 * (`coercion_rule('loneSurrogate')`), so that a report names a rule without writing its words again.
 */
export const COERCION_MACRO_SQL = `CREATE OR REPLACE TEMP MACRO coercion_rule(name) AS CASE name ${Object.entries(COERCIONS)
  .map(([name, note]) => `WHEN ${sqlText(name)} THEN ${sqlText(note)}`)
  .join(' ')} ELSE error('no coercion rule ' || name) END`;

export const MATERIALIZATIONS = ['view', 'table'] as const;
export type Materialization = (typeof MATERIALIZATIONS)[number];

export interface SharedRelation {
  /** the file name without step and `.sql`: the relation's name (`FROM filtered_conversations`) */
  name: string;
  /** the number the file name starts with: lower steps are created first */
  step: number;
  /**
   * from the header's `Materialized:` line: `view` (the default: computed wherever a report reads
   * it) or `table` (computed once per run; needed when the SQL uses a parameter)
   */
  materialized: Materialization;
  header: string;
  sql: string;
  file: string;
}

const FILE_NAME = /^(\d+)_([A-Za-z_][A-Za-z0-9_]*)\.sql$/;

/** The package's sql/shared/ folder. */
export function defaultSharedSqlDir(): string {
  return join(defaultSqlDir(), 'shared');
}

/** Every shared relation in `dir`, in the order they are created. */
export function loadSharedRelations(dir: string = defaultSharedSqlDir()): SharedRelation[] {
  const relations = sqlFilesIn(dir, 'shared relations folder').map((entry) => {
    const file = join(dir, entry);
    const match = FILE_NAME.exec(entry);
    if (!match) {
      throw new QueryError(
        `shared relation file ${file} must be named STEP_NAME.sql (e.g. 30_node_visitors.sql): ` +
          `STEP orders the files, NAME is the relation`,
      );
    }
    const sql = readFileSync(file, 'utf8');
    const header = parseHeader(sql);
    return { name: match[2]!, step: Number(match[1]), materialized: materialization(header, file), header, sql, file };
  });
  relations.sort((a, b) => a.step - b.step || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Set<string>();
  for (const r of relations) {
    if (seen.has(r.name)) throw new QueryError(`shared relation ${r.name} is defined twice (in ${dir}): rename one file`);
    seen.add(r.name);
  }
  return relations;
}

function materialization(header: string, file: string): Materialization {
  const value = headerField(header, 'materialized');
  if (value === undefined) return 'view';
  const word = value.split(/[\s(]/)[0]!.toLowerCase();
  if ((MATERIALIZATIONS as readonly string[]).includes(word)) return word as Materialization;
  throw new QueryError(`shared relation file ${file}: "Materialized: ${value}" must be view or table`);
}

/**
 * The relations the SQL texts `sqls` read, directly or through other relations, in creation order:
 * a run creates only those, so a table relation no selected report reads is never computed.
 * A name is read where it appears as a word (a mention in a comment only costs its creation).
 */
function relationsRead(relations: readonly SharedRelation[], sqls: readonly string[]): SharedRelation[] {
  const mentions = (sql: string, name: string) => new RegExp(`\\b${name}\\b`, 'i').test(sql);
  const needed = new Set<string>();
  // a relation reads only relations created before it: walking backwards finds every reader first
  for (const relation of [...relations].reverse()) {
    const read = sqls.some((sql) => mentions(sql, relation.name)) || relations.some((r) => needed.has(r.name) && mentions(reportBody(r.sql), relation.name));
    if (read) needed.add(relation.name);
  }
  return relations.filter((r) => needed.has(r.name));
}

/** Creates, in order, the relations the reports `readers` read, each bound the parameters it uses. */
export async function createSharedRelations(
  connection: DuckDBConnection,
  relations: readonly SharedRelation[],
  readers: readonly { sql: string }[],
  values: Record<ParamName, DuckDBValue>,
): Promise<void> {
  // what a report that takes a search query (sql/search_matches.sql) reads it with
  await connection.run(SEARCH_MACRO_SQL);
  await connection.run(COERCION_MACRO_SQL);
  for (const relation of relationsRead(relations, readers.map((r) => reportBody(r.sql)))) {
    try {
      const { sql, params } = await creationStatement(connection, relation);
      await runBound(connection, sql, pick(values, params), pick(BIND_TYPES, params));
    } catch (err) {
      if (err instanceof ConvoduckError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new QueryError(`shared relation ${relation.name} (${relation.file}) failed: ${message.split('\n')[0]}`);
    }
  }
}

/** The statement that creates the relation, and the parameters it uses. */
async function creationStatement(
  connection: DuckDBConnection,
  relation: SharedRelation,
): Promise<{ sql: string; params: ParamName[] }> {
  const body = reportBody(relation.sql);
  const what = `shared relation ${relation.name} (${relation.file})`;
  const prepared = await connection.prepare(body);
  try {
    const params = reportParameters(prepared, what);
    if (prepared.statementType === StatementType.CREATE) return { sql: body, params };
    if (prepared.statementType !== StatementType.SELECT) {
      throw new QueryError(`${what} must be one SELECT (or one CREATE statement, such as a macro)`);
    }
    if (relation.materialized === 'view' && params.length > 0) {
      throw new QueryError(
        `${what} uses ${params.map((p) => `$${p}`).join(', ')}, and a view cannot take parameters: ` +
          `add the header line "-- Materialized: table"`,
      );
    }
    const kind = relation.materialized === 'table' ? 'TABLE' : 'VIEW';
    return { sql: `CREATE OR REPLACE TEMP ${kind} ${sqlIdent(relation.name)} AS\n${body}`, params };
  } finally {
    prepared.destroySync();
  }
}
