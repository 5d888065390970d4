// `convoduck report [NAME…]`: runs the SQL reports in sql/ (and the user's --sql-dir) and writes
// one file per report.

import { Option, type Command } from 'commander';
import { resolve } from 'node:path';
import { KNOWN_CHANNELS } from '../../api/types.js';
import { NUMBER_PARAMS } from '../../filters/number-params.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../reports/choices.js';
import type { CustomReportDir, ReportDefinition } from '../../reports/index.js';
import { parseDurationArg } from '../../shared/time.js';
import { DB_DIR_HELP, LAKE_HELP, resolveReadTarget } from '../config/read-target.js';
import { resolveRedaction, withRedactOption } from '../config/redaction.js';
import { UsageError } from '../errors.js';
import { READER_WAIT_HELP, SINCE_HELP, UNTIL_HELP, withDeprecatedAlias } from '../grammar.js';
import { parseChoice, parsePositiveInt } from '../parse.js';
import { fileLine, reportHtml, rowsOf } from './report-html.js';

interface ReportFlags {
  list?: boolean;
  out: string;
  format: string;
  db?: string;
  dbDir?: string;
  lake?: string;
  since?: string;
  until?: string;
  agent?: string[];
  channel?: string;
  tz: string;
  /** one per NUMBER_PARAMS entry, by its key */
  [numberParam: string]: unknown;
  search?: string;
  raw?: boolean;
  excel?: boolean;
  wait: string;
  html?: boolean;
  sqlDir?: string;
  space?: string[];
  redact?: boolean;
  withText?: boolean;
}

export function registerReport(program: Command): void {
  const command = program
    .command('report')
    .summary('run the SQL reports in sql/ and write one CSV (or JSON, Parquet) file each to reports/')
    .description('Run the SQL reports (sql/*.sql) against the database, read-only, and write one file per report')
    .argument('[name...]', 'reports to run (default: all; see --list)')
    .option('--list', 'list the reports with their titles and exit')
    .option('--out <dir>', 'folder for the files', 'reports')
    .addOption(new Option('--format <format>', 'file format').choices(OUTPUT_FORMATS).default('csv'))
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--db-dir <dir>', DB_DIR_HELP)
    .option('--lake <dir>', LAKE_HELP)
    .option('--sql-dir <dir>', 'also run the reports (.sql files) in this folder (default: $CONVODUCK_SQL_DIR)')
    .option('--since <time>', `${SINCE_HELP} (a date is midnight in --tz)`)
    .option('--until <time>', UNTIL_HELP)
    .option('--agent <id>', 'only this agent (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--channel <channel>', `only this channel: ${KNOWN_CHANNELS.join(' or ')}`)
    .option('--space <slug>', 'only this space (repeatable; default: every space of the database)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--tz <zone>', 'time zone of day, week and hour buckets (IANA name)', 'UTC');
  command
    .option('--raw', 'CSV: keep text cells that look like spreadsheet formulas as they are')
    .option('--excel', 'CSV: add a UTF-8 byte-order mark and use CRLF line ends')
    .option('--html', 'write one self-contained page, report.html, with KPI tiles, charts and tables instead')
    .option('--with-text', 'HTML: show the failed tool calls’ outputs too (the page shows no free text by default)')
    .option('--wait <duration>', READER_WAIT_HELP, '30s');
  withRedactOption(command);
  // the settings of one report each, apart in --help: most runs never need them
  command.optionsGroup('Options of one report each:');
  for (const p of NUMBER_PARAMS) command.option(`${p.flag} <n>`, `${p.help} (default: ${p.defaultValue})`);
  command.option('--search <words>', 'search_matches: the query whose matching turns are counted per day (without it, that report has no rows)');
  command.optionsGroup('Options:');
  withDeprecatedAlias(command, { old: '--from <time>', now: '--since' });
  withDeprecatedAlias(command, { old: '--to <time>', now: '--until' });
  withDeprecatedAlias(command, { old: '--days <n>', now: '--change-days' });
  command
    .addHelpText(
      'after',
      `
Your own reports: put NAME.sql files (one SELECT, header as in sql/*.sql) in a folder and pass
--sql-dir DIR or set CONVODUCK_SQL_DIR; they run beside the built-in reports and may read the
shared relations (filtered_conversations, ...). A name already taken by a built-in report is refused.

Exit codes: 0 ok, 1 a report failed or the database stayed busy for longer than --wait, 2 bad usage.`,
    )
    .action(async (names: string[], flags: ReportFlags) => {
      const customSqlDir = customReportDir(flags.sqlDir);
      const [{ loadCatalog, parseReportTime, runReports }, { busyNotice }] = await Promise.all([
        import('../../reports/index.js'),
        import('../../store/read-only.js'),
      ]);
      if (flags.list) {
        listReports(loadCatalog(customSqlDir));
        return;
      }
      const now = new Date();
      const format = parseChoice('--format', flags.format, OUTPUT_FORMATS) as OutputFormat;
      const outDir = resolve(flags.out);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      if (flags.withText && !flags.html) throw new UsageError('--with-text is for the page: add --html, or drop --with-text');
      const redaction = resolveRedaction(flags.redact);
      const filters = {
        from: flags.since === undefined ? null : parseReportTime('--since', flags.since, now),
        to: flags.until === undefined ? null : parseReportTime('--until', flags.until, now),
        agents: flags.agent ?? [],
        channel: flags.channel === undefined ? null : parseChoice('--channel', flags.channel, KNOWN_CHANNELS),
        tz: flags.tz,
        ...numberFlags(flags),
        spaces: flags.space ?? [],
        search: flags.search === undefined ? null : parseSearch(flags.search),
      };
      const onWait = () => process.stderr.write(busyNotice(flags.wait));
      const dbPath = resolveReadTarget(flags);
      if (flags.html) {
        loadCatalog(customSqlDir); // the page uses built-in reports only, but a broken folder is still an error
        await reportHtml({ names, dbPath, outDir, filters, now, lockTimeoutMs, onWait, redaction, withText: flags.withText ?? false });
        return;
      }
      await runReports({
        dbPath,
        names,
        outDir,
        format,
        raw: flags.raw ?? false,
        excel: flags.excel ?? false,
        redaction,
        filters,
        customSqlDir,
        lockTimeoutMs,
        onWait,
        onReport: (r) => process.stderr.write(fileLine(r.name, rowsOf(r.rows), r.path)),
      });
    });
}

/** The whole-number parameters given on the command line, by their key. */
function numberFlags(flags: ReportFlags): Partial<Record<(typeof NUMBER_PARAMS)[number]['key'], number>> {
  const given = NUMBER_PARAMS.filter((p) => typeof flags[p.key] === 'string');
  return Object.fromEntries(given.map((p) => [p.key, parsePositiveInt(p.flag, flags[p.key] as string)]));
}

/** `--search`: some words (an empty one would count nothing and look like a quiet period). */
function parseSearch(value: string): string {
  if (value.trim() === '') throw new UsageError('--search is empty: give the words whose matches to count, e.g. --search "refund not received"');
  return value;
}

/** `--sql-dir`, else CONVODUCK_SQL_DIR (an empty value is unset), else none. */
export function customReportDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): CustomReportDir | null {
  if (flag !== undefined) return { dir: flag, source: '--sql-dir' };
  const fromEnv = env.CONVODUCK_SQL_DIR;
  return fromEnv ? { dir: fromEnv, source: 'CONVODUCK_SQL_DIR' } : null;
}

function listReports(reports: readonly ReportDefinition[]): void {
  const width = Math.max(0, ...reports.map((r) => r.name.length));
  for (const r of reports) {
    process.stdout.write(`${r.name.padEnd(width)}  ${r.title}${r.custom ? `  (${r.file})` : ''}\n`);
  }
}
