// One table COPY'd by DuckDB into the export's staging directory: the SELECT (JSON columns as
// text, CSV timestamps as ISO strings, the partition columns and the joins that give a row its
// space or its conversation's start), the COPY options, and the files DuckDB reports writing.

import { dirname, join, relative } from 'node:path';
import { redactedSql, ruleOf } from '../redact/outputs.js';
import { InvalidInputError } from '../shared/errors.js';
import { isoUtcSql } from '../shared/time.js';
import type { Database } from '../store/database.js';
import { DERIVED_CONVERSATION_TABLES, type PublicTable } from '../store/schema.js';
import { bySpace, NULL_PARTITION, timeUnitOf, type ExportFormat, type PartitionKind } from './manifest.js';
import { placeholderPath } from './placeholder.js';
import { createOutputDir } from '../shared/output-dir.js';
import { sqlText } from '../store/sql.js';

/** Under the staging directory: each table's 0-row file, for when the table ends up without files. */
export const PLACEHOLDERS_DIR = '.placeholders';

/** Tables whose rows belong to a conversation: filtered by --since and partitioned. */
export const CONVERSATION_TABLES: readonly string[] = [...DERIVED_CONVERSATION_TABLES, 'conversation_load_state'];

/** How one table is exported. */
export interface TablePlan {
  table: PublicTable;
  partitionBy: PartitionKind | null;
  filtered: boolean;
}

/** A filtered table's rows: its conversations started since `since`, or in one of `partitions` (time partition values). */
export interface RowFilter {
  since: Date | null;
  partitions: readonly string[];
}

const EXTENSIONS: Record<ExportFormat, string> = { parquet: 'parquet', csv: 'csv' };

/** The table's columns whose type is `type`, or starts with it (`TIMESTAMP` matches both kinds). */
async function columnsOfType(db: Database, table: string, type: string): Promise<string[]> {
  const rows = await db.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ? AND starts_with(data_type, ?)
     ORDER BY column_index`,
    [table, type],
  );
  return rows.map((r) => r.column_name);
}

/** Writes `plan.table` under `stagingDir`; its rows, and its files relative to `stagingDir`. */
export async function copyTable(
  db: Database,
  plan: TablePlan,
  stagingDir: string,
  format: ExportFormat,
  filter: RowFilter,
  redact = false,
): Promise<{ rows: number; files: string[]; placeholder: string | null }> {
  const { table, partitionBy } = plan;
  const unit = timeUnitOf(partitionBy);
  const isChild = CONVERSATION_TABLES.includes(table) && table !== 'conversations';
  // a table without a space column is partitioned by its parent's space (space-scope.ts's rule)
  const space = bySpace(partitionBy) ? await spaceSource(db, table) : null;
  const needsJoin = isChild && (unit !== null || plan.filtered || space === 'conversation');
  const startedAt = isChild ? 'c.started_at' : 't.started_at';
  // JSON columns go out as plain strings: every reader understands a UTF-8 string column,
  // not every one the Parquet JSON annotation.
  const replaced = (await columnsOfType(db, table, 'JSON')).map((c) => `${redact ? redactedSql(c, `t."${c}"`) : `t."${c}"`}::VARCHAR AS "${c}"`);
  if (redact) {
    // --redact: the columns src/redact/outputs.ts names, through its functions (registered on the connection)
    const json = new Set(await columnsOfType(db, table, 'JSON'));
    for (const c of await columnsOfType(db, table, '')) {
      if (!json.has(c) && ruleOf(c)) replaced.push(`${redactedSql(c, `t."${c}"`)} AS "${c}"`);
    }
  }
  if (format === 'csv') {
    // CSV timestamps as every text output prints them (Parquet keeps its native types). The
    // session is UTC, so a TIMESTAMP without zone is read as UTC.
    for (const c of await columnsOfType(db, table, 'TIMESTAMP')) {
      replaced.push(`${isoUtcSql(`t."${c}"::TIMESTAMPTZ`)} AS "${c}"`);
    }
  }
  const star = replaced.length > 0 ? `t.* REPLACE (${replaced.join(', ')})` : 't.*';
  const spaceExpr = { own: '', conversation: ', c.space AS space', agent: ', a.space AS space', run: ', r.space AS space' };
  const timeValue = unit === 'day' ? `strftime(${startedAt}, '%Y-%m-%d')` : unit === 'month' ? `strftime(${startedAt}, '%Y-%m')` : null;
  const partitionExpr = (space ? spaceExpr[space] : '') + (timeValue ? `, ${timeValue} AS ${unit}` : '');
  const rowFilter = [
    ...(filter.since ? [`${startedAt} >= ?::TIMESTAMPTZ`] : []),
    ...(timeValue && filter.partitions.length > 0
      ? [`coalesce(${timeValue}, ${sqlText(NULL_PARTITION)}) IN (${filter.partitions.map(sqlText).join(', ')})`]
      : []),
  ];
  const select =
    `SELECT ${star}${partitionExpr} FROM ${table} t` +
    (needsJoin ? ` LEFT JOIN conversations c ON c.id = t.conversation_id` : '') +
    (space === 'agent' ? ` LEFT JOIN agents a ON a.id = t.agent_id` : '') +
    (space === 'run' ? ` LEFT JOIN sync_runs r ON r.run_id = t.run_id` : '') +
    (plan.filtered ? ` WHERE ${rowFilter.length > 0 ? rowFilter.join(' OR ') : 'false'}` : '');
  const partitionColumns = [...(space ? ['space'] : []), ...(unit ? [unit] : [])];

  const tableDir = join(stagingDir, table);
  const options = [
    format === 'parquet' ? 'FORMAT parquet' : 'FORMAT csv, HEADER',
    'RETURN_FILES',
  ];
  let target: string;
  if (partitionBy) {
    target = tableDir;
    options.push(`PARTITION_BY (${partitionColumns.join(', ')})`, 'OVERWRITE_OR_IGNORE');
  } else {
    createOutputDir(tableDir, 0o700);
    target = join(tableDir, `${table}.${EXTENSIONS[format]}`);
  }
  const params = plan.filtered && filter.since ? [filter.since.toISOString()] : [];
  const reader = await db.connection.runAndReadAll(
    `COPY (${select}) TO ${sqlText(target)} (${options.join(', ')})`,
    params,
  );
  const row = reader.getRowsJS()[0] ?? [];
  const rows = Number(row[0] ?? 0);
  const files = Array.isArray(row[1]) ? (row[1] as unknown[]).map((f) => relative(stagingDir, String(f))) : [];
  if (partitionBy) createOutputDir(tableDir, 0o700); // no rows: still a (empty) table directory
  let placeholder: string | null = null;
  if (partitionBy && files.length === 0) {
    // the same columns as the data files: those of the SELECT without the ones the path holds
    placeholder = placeholderPath(partitionColumns, EXTENSIONS[format]);
    const path = join(stagingDir, PLACEHOLDERS_DIR, table, placeholder);
    createOutputDir(dirname(path), 0o700);
    await db.connection.run(
      `COPY (SELECT * EXCLUDE (${partitionColumns.join(', ')}) FROM (${select}) WHERE false) TO ${sqlText(path)} ` +
        `(${format === 'parquet' ? 'FORMAT parquet' : 'FORMAT csv, HEADER'})`,
      params,
    );
  }
  return { rows, files: files.sort(), placeholder };
}

/** Where a table's rows get their space: its own column, or its conversation's, agent's or run's. */
async function spaceSource(db: Database, table: string): Promise<'own' | 'conversation' | 'agent' | 'run'> {
  const rows = await db.all<{ column_name: string }>(
    `SELECT column_name FROM duckdb_columns()
     WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?`,
    [table],
  );
  const columns = new Set(rows.map((r) => r.column_name));
  if (columns.has('space')) return 'own';
  if (columns.has('run_id')) return 'run';
  if (columns.has('conversation_id')) return 'conversation';
  if (columns.has('agent_id')) return 'agent';
  throw new InvalidInputError(`table ${table} has no space to partition by: leave it out with --tables`);
}
