// Redaction of what leaves the store (`report`, `query`, `export` with --redact): the one list of
// columns that carry personal data, by name, and the one function that cleans a value of each.
//
// How: the COPY paths (export, report JSON/Parquet) and the report rows (CSV, HTML) are all
// SELECTs convoduck builds, so there the columns are wrapped in DuckDB scalar functions that call
// back into redactText/keyedHash (registerRedaction); an ad-hoc `query` is the user's own SQL, so
// its rows are cleaned by column name as they pass through the one writer (query.ts). Either way
// the same rule per column name applies. The key lives only in the closures: never in SQL text.
//
// Not caught (docs/personal-data.md says so to users): anything redactText does not detect
// (names, postal addresses), and a column renamed in the user's own SQL (`SELECT text AS t`).

import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { DuckDBScalarFunction, VARCHAR } from '@duckdb/node-api';
import { keyedHash } from './keyed-hash.js';
import { redactText } from './redact-text.js';
import { redactUrlQuery } from './url-query.js';

/** text: placeholders over personal data; url: the query string cleaned; hash: a keyed hash. */
export type ColumnRule = 'text' | 'url' | 'hash';

/** Columns redacted wherever they appear (a table, a report, a query's result), by name. */
export const REDACTED_COLUMNS: Readonly<Record<string, ColumnRule>> = {
  text: 'text', // transcript_turns.text, raw_conversation_parts.text
  summary: 'text', // conversations.summary, report conversation_list
  input: 'text',
  output: 'text',
  input_redacted: 'text', // tool_calls: the API hides credentials there, not the caller's details
  output_redacted: 'text', // tool_calls, report tool_failure_log
  body: 'text', // raw bodies (JSON text): what the detectors find in it
  page_url: 'url',
  session_ref: 'hash',
};

/** The rule of a column name (case-insensitive, as DuckDB names are), or undefined. */
export function ruleOf(column: string): ColumnRule | undefined {
  return Object.hasOwn(REDACTED_COLUMNS, column.toLowerCase()) ? REDACTED_COLUMNS[column.toLowerCase()] : undefined;
}

/** Redaction switched on, with its key (loaded by loadRedactionKey). */
export interface Redaction {
  readonly key: Uint8Array;
}

/** A `"session_ref": "…"` member of JSON text (a raw body, a tool payload). */
const SESSION_REF_MEMBER = /("session_ref"\s*:\s*)"((?:[^"\\]|\\.)*)"/g;

/** One value cleaned by `rule`. */
export function redactValue(rule: ColumnRule, value: string, redaction: Redaction): string {
  switch (rule) {
    case 'text':
      // JSON text carries session_ref too: hashed as the column is, so a body joins with its row
      return redactText(value).replace(SESSION_REF_MEMBER, (_, member: string, inner: string) => `${member}"${keyedHash(JSON.parse(`"${inner}"`) as string, redaction.key)}"`);
    case 'url':
      // a page_url is one URL, not text: its query values cleaned, as redactText does inside text
      return redactText(redactUrlQuery(value, 'values'));
    case 'hash':
      return keyedHash(value, redaction.key);
  }
}

/**
 * A row cleaner for a result with these column names, or null when no column needs it. Text
 * cells only: a list or struct under a redacted name is left as it is (documented).
 */
export function rowRedactor(columns: readonly string[], redaction: Redaction): ((row: DuckDBValue[]) => DuckDBValue[]) | null {
  const rules = columns.map(ruleOf);
  if (!rules.some(Boolean)) return null;
  return (row) => row.map((value, i) => (typeof value === 'string' && rules[i] ? redactValue(rules[i], value, redaction) : value));
}

const SQL_FUNCTIONS: Record<ColumnRule, string> = {
  text: 'convoduck_redact_text',
  url: 'convoduck_redact_url',
  hash: 'convoduck_keyed_hash',
};

/** Registers the SQL functions redactedSql uses on `connection` (once per connection). */
export function registerRedaction(connection: DuckDBConnection, redaction: Redaction): void {
  for (const rule of Object.keys(SQL_FUNCTIONS) as ColumnRule[]) {
    connection.registerScalarFunction(
      DuckDBScalarFunction.create({
        name: SQL_FUNCTIONS[rule],
        returnType: VARCHAR,
        parameterTypes: [VARCHAR],
        specialHandling: true, // NULL in, NULL out: the function sees it
        mainFunction: (_info, input, output) => {
          const values = input.getColumnVector(0);
          for (let i = 0; i < input.rowCount; i++) {
            const value = values.getItem(i);
            output.setItem(i, typeof value === 'string' ? redactValue(rule, value, redaction) : null);
          }
          output.flush();
        },
      }),
    );
  }
}

/**
 * `expr` (the SQL of column `column`) wrapped in its redaction function, or `expr` itself when
 * the column is not redacted. `json`: the column is JSON and stays JSON (placeholders hold no
 * quote or backslash, so the redacted text is JSON still).
 */
export function redactedSql(column: string, expr: string, json = false): string {
  const rule = ruleOf(column);
  if (!rule) return expr;
  const call = `${SQL_FUNCTIONS[rule]}((${expr})::VARCHAR)`;
  return json ? `${call}::JSON` : call;
}
