import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { QUERY_FORMATS } from '../../output/formats.js';
import { DB_DIR_HELP, LAKE_HELP, resolveReadTarget } from '../config/read-target.js';
import { resolveRedaction, withRedactOption } from '../config/redaction.js';
import { UsageError } from '../errors.js';
import { parseDurationArg } from '../../shared/time.js';
import { parsePositiveInt, parseRowsFormat } from '../parse.js';
import { READER_WAIT_HELP } from '../grammar.js';

interface QueryFlags {
  db?: string;
  dbDir?: string;
  lake?: string;
  file?: string;
  format?: string;
  wait: string;
  maxWidth: string;
  space?: string[];
  raw?: boolean;
  redact?: boolean;
}

export function registerQuery(program: Command): void {
  const command = program
    .command('query')
    .summary('run SQL against the database (read-only) and print the result')
    .description(
      'Run SQL against the DuckDB file, read-only, and write the result to stdout as an aligned ' +
        'table (the default on a terminal), CSV (the default otherwise), JSON or NDJSON. Rows stream, ' +
        'so large results do not have to fit in memory. Several statements may be given; the last ' +
        'one’s result is printed. Works while a sync runs: it waits for the sync to release the ' +
        'file between batches (up to --wait).',
    )
    .argument('[sql]', 'the SQL to run (or use --file)')
    .option('-f, --file <file>', 'read the SQL from this file (- for stdin)')
    .option('--format <format>', `output format: ${QUERY_FORMATS.join(', ')} (default: table on a terminal, else csv)`)
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--db-dir <dir>', DB_DIR_HELP)
    .option('--lake <dir>', LAKE_HELP)
    .option('--wait <duration>', READER_WAIT_HELP, '30s')
    .option('--max-width <n>', 'table format: cut cells longer than this', '48')
    .option('--raw', 'CSV: keep text cells that look like spreadsheet formulas as they are')
    .option('--space <slug>', 'the tables hold only this space’s rows (repeatable)', (value: string, previous: string[] = []) => [...previous, value]);
  withRedactOption(command)
    .addHelpText(
      'after',
      `
Examples:
  convoduck query "SELECT agent_name, outcome, count(*) AS n FROM conversations_named GROUP BY ALL ORDER BY n DESC"
  convoduck query --file weekly.sql --format csv > weekly.csv
  convoduck query "SELECT * FROM tool_calls WHERE status <> 'ok'" --format ndjson | jq .slug
  echo "SHOW TABLES" | convoduck query --file -
  convoduck query --space acme-prod "SELECT count(*) FROM conversations"   # one space of several

Values: JSON numbers for integers up to 2^53 (larger ones as strings), timestamps in ISO 8601
UTC (2026-11-01T08:00:00Z, a fraction only when present; a TIMESTAMP without zone is read in
the session's TimeZone, as DuckDB's ::TIMESTAMPTZ reads it), JSON columns embedded as JSON. CSV follows RFC 4180
(NULL is an empty field, an empty string is ""), as report writes it: a text cell that begins
with = + - @ or a tab or line break gets a leading ' (--raw keeps it); the table shows NULL as NULL.
--redact cleans result columns by name (text, summary, input/output_redacted, body, page_url,
session_ref); a column you rename in your SQL is not recognised (docs/personal-data.md).
Exit codes: 0 ok, 1 SQL error or database busy for longer than --wait, 2 bad usage.`,
    )
    .action(async (sqlArg: string | undefined, flags: QueryFlags) => {
      const sql = readSql(sqlArg, flags.file);
      const redaction = resolveRedaction(flags.redact);
      const format = parseRowsFormat(flags.format);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const maxCellWidth = parsePositiveInt('--max-width', flags.maxWidth);
      const [{ runQuery }, { busyNotice }] = await Promise.all([import('../../query/query.js'), import('../../store/read-only.js')]);
      const result = await runQuery(resolveReadTarget(flags), sql, {
        format,
        lockTimeoutMs,
        maxCellWidth,
        spaces: flags.space ?? [],
        raw: flags.raw ?? false,
        redaction,
        onWait: () => process.stderr.write(busyNotice(flags.wait)),
      });
      if (format === 'table' && !result.truncated) {
        process.stderr.write(`(${result.rows} row${result.rows === 1 ? '' : 's'})\n`);
      }
    });
}

function readSql(sqlArg: string | undefined, file: string | undefined): string {
  if (sqlArg !== undefined && file !== undefined) {
    throw new UsageError('give the SQL either as an argument or with --file, not both');
  }
  if (file !== undefined) {
    try {
      return readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
      throw new UsageError(`cannot read --file ${file}: ${why}; pass a readable .sql file`);
    }
  }
  if (sqlArg === undefined || sqlArg.trim() === '') {
    throw new UsageError('no SQL given: convoduck query "SELECT …" or convoduck query --file query.sql');
  }
  return sqlArg;
}
