import type { Command } from 'commander';
import type { TableExport } from '../../exports/export.js';
import { EXPORT_FORMATS, MANIFEST_FILE, PARTITION_KINDS } from '../../exports/manifest.js';
import { PUBLIC_TABLES } from '../../store/schema.js';
import { resolveDbLayout } from '../config/db-path.js';
import { resolveRedaction, withRedactOption } from '../config/redaction.js';
import { configFilePath } from '../config/settings.js';
import { withDbDirOption, withShardOptions, type ShardFlags } from '../db-dir/options.js';
import { shardSpecOf } from '../db-dir/space-files.js';
import { UsageError } from '../errors.js';
import { formatInstant, parseDurationArg, parseTimeArg } from '../../shared/time.js';
import { parseChoice } from '../parse.js';
import { JSON_HELP, READER_WAIT_HELP, SINCE_HELP } from '../grammar.js';

interface ExportFlags extends ShardFlags {
  db?: string;
  dbDir?: string;
  config?: string;
  out?: string;
  format: string;
  tables?: string;
  partitionBy?: string;
  since?: string;
  json?: boolean;
  wait: string;
  space?: string[];
  redact?: boolean;
}

export function registerExport(program: Command): void {
  const command = program
    .command('export')
    .summary('write the public tables as Parquet or CSV files (optionally Hive-partitioned)')
    .description(
      `Write every public table (${PUBLIC_TABLES.join(', ')}) to OUT/<table>/, as Parquet (default) or CSV, for DuckDB, ` +
        'Spark, Trino or BigQuery. --partition-by writes the conversation tables Hive-style by the ' +
        'conversation’s start (OUT/tool_calls/day=2026-11-01/…), and with space every table by space ' +
        '(OUT/tool_calls/space=acme-prod/day=2026-11-01/…); a space-partitioned export replaces only the ' +
        'directories of the spaces it writes, so several databases can export into one location. --since keeps only conversations ' +
        'started since then (agents, tools and the sync tables are always whole); with --partition-by ' +
        'it replaces just the partitions it writes, so a scheduled export stays complete and current. ' +
        `The directory is created owner-only (0700, files 0600: transcripts are personal data); ` +
        `${MANIFEST_FILE} in it records what was written.`,
    )
    .option('--out <dir>', 'directory to write (created if missing; must be empty or an earlier export)')
    .option('--format <format>', `file format: ${EXPORT_FORMATS.join(', ')}`, 'parquet')
    .option('--tables <list>', 'comma-separated tables to write (default: all public tables)')
    .option('--partition-by <unit>', `Hive partitions: by started_at (conversation tables), by space (every table), or both: ${PARTITION_KINDS.join(', ')}`)
    .option('--since <time>', `only ${SINCE_HELP} (a date is midnight UTC)`)
    .option('--json', JSON_HELP)
    .option('--space <slug>', 'only this space’s rows (repeatable; default: every space)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--wait <duration>', READER_WAIT_HELP, '30s');
  withShardOptions(withDbDirOption(command)).option(
    '--config <file>',
    'with --shard-count: the config whose [[space]] slugs and pins (shard = K) decide what the shard owns (default: $CONVODUCK_CONFIG)',
  );
  withRedactOption(command)
    .addHelpText(
      'after',
      `
Examples:
  convoduck export --out ./export                       # all tables, Parquet, one file each
  convoduck export --out ./lake --partition-by day      # OUT/conversations/day=2026-11-01/data_0.parquet
  convoduck export --out ./lake --partition-by day --since 2d   # nightly: refresh the last days only
  convoduck export --out ./csv --format csv --tables conversations,tool_calls --since 2026-11-01
  convoduck export --out /shared/lake --partition-by space,day --since 2d   # one dataset for many spaces
  convoduck export --db-dir /data/spaces --shard-count 3 --out /shared/lake --partition-by space,day
                                                        # the spaces of shard $JOB_COMPLETION_INDEX

Read it back:
  duckdb -c "SELECT count(*) FROM read_parquet('export/conversations/*.parquet')"
  duckdb -c "SELECT day, count(*) FROM read_parquet('lake/tool_calls/**/*.parquet', hive_partitioning = true) GROUP BY day"
  spark.read.parquet("lake/conversations")     # day becomes a column

Timestamps are UTC (Parquet: TIMESTAMP adjusted to UTC, microseconds; CSV: 2026-11-01T08:00:00Z,
a fraction only when present, as query, report and status print them).
JSON columns (tool inputs/outputs, raw bodies) are written as strings holding JSON text.`,
    )
    .action(async (flags: ExportFlags) => {
      if (!flags.out) throw new UsageError('--out DIR is required: the directory to write the files to');
      const [{ exportTables, parseTableList, partitionStart }, { busyNotice }] = await Promise.all([
        import('../../exports/export.js'),
        import('../../store/read-only.js'),
      ]);
      const now = new Date();
      const format = parseChoice('--format', flags.format, EXPORT_FORMATS);
      const partitionBy = flags.partitionBy ? parseChoice('--partition-by', flags.partitionBy, PARTITION_KINDS) : null;
      const tables = flags.tables !== undefined ? parseTableList(flags.tables) : undefined;
      const since = flags.since ? parseTimeArg('--since', flags.since, now) : null;
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const redaction = resolveRedaction(flags.redact);
      if (since && partitionBy && partitionStart(since, partitionBy).getTime() !== since.getTime()) {
        process.stderr.write(
          `convoduck: --since rounded down to ${formatInstant(partitionStart(since, partitionBy))} ` +
            `so that every ${partitionBy.replace('space,', '')} partition written is complete\n`,
        );
      }

      const options = {
        outDir: flags.out,
        format,
        tables,
        partitionBy,
        since,
        lockTimeoutMs,
        redaction,
        now: () => now,
        onWait: () => process.stderr.write(busyNotice(flags.wait)),
      };
      const onTable = (t: TableExport) => process.stderr.write(describeTable(t) + '\n');
      const layout = resolveDbLayout(flags);
      const spec = shardSpecOf(flags);
      if (layout.kind === 'dir') {
        const { exportSpaceFiles } = await import('../export/export-dir.js');
        const only = flags.space ?? [];
        const summary = await exportSpaceFiles({ dir: layout.dir, only, spec, configFile: configFilePath(flags.config), export: options, onTable });
        const erased = summary.spaces.flatMap((s) => s.erasedPartitions.map((p) => `${s.space}: ${p}`));
        if (erased.length > 0) process.stderr.write(`  and the partitions that held erased conversations: ${erased.join(', ')}\n`);
        process.stderr.write(`exported ${count(summary.spaces.length, 'space file')} to ${summary.outDir}\n`);
        if (flags.json) process.stdout.write(JSON.stringify(summary) + '\n');
        return;
      }
      if (spec !== null) throw new UsageError('--shard-count shares the space files of a folder among shards — add --db-dir DIR');
      const summary = await exportTables(layout.path, { ...options, spaces: flags.space ?? [], onTable });
      if (summary.erasedPartitions.length > 0) {
        process.stderr.write(`  and the partitions that held erased conversations: ${summary.erasedPartitions.join(', ')}\n`);
      }
      process.stderr.write(`exported ${count(summary.tables.length, 'table')} to ${summary.outDir}\n`);
      if (flags.json) process.stdout.write(JSON.stringify(summary) + '\n');
    });
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

const TABLE_WIDTH = Math.max(...PUBLIC_TABLES.map((t) => t.length));

/** One line per table, its columns at the same place on every line: table, rows, whether --since cut it, where. */
export function describeTable(t: TableExport): string {
  const where = t.partitionBy
    ? `${t.path}/ (${count(t.files.length, 'file')} by ${t.partitionBy}` + (t.keptPartitions > 0 ? `, ${count(t.keptPartitions, 'earlier partition')} kept` : '') + ')'
    : `${t.path}/${t.files[0]?.split('/').pop() ?? ''}`;
  return `  ${t.table.padEnd(TABLE_WIDTH)}  ${count(t.rows, 'row').padStart(14)}  ${(t.filtered ? 'since' : 'whole').padEnd(5)}  → ${where}`;
}
