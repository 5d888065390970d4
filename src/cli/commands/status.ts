import type { Command } from 'commander';
import { resolveDbLayout } from '../config/db-path.js';
import { configFilePath } from '../config/settings.js';
import { withDbDirOption, withShardOptions, type ShardFlags } from '../db-dir/options.js';
import { shardSpecOf } from '../db-dir/space-files.js';
import { UsageError } from '../errors.js';
import { parseDurationArg } from '../../shared/time.js';
import { parsePositiveInt } from '../parse.js';
import { JSON_HELP, READER_WAIT_HELP } from '../grammar.js';

interface StatusFlags extends ShardFlags {
  db?: string;
  dbDir?: string;
  config?: string;
  json?: boolean;
  runs: string;
  wait: string;
  space?: string[];
}

export function registerStatus(program: Command): void {
  const command = program
    .command('status')
    .summary('show recent sync runs, the watermark, row counts, detail coverage and errors')
    .description(
      'Show what the database holds and how the crawl is doing: the last sync runs, the listing ' +
        'watermark, each space’s watermark, last run and pending details, listing gaps (conversations the server counts but did not serve, until a sync ' +
        'lists that window again), rows per table, detail coverage (listed vs stored vs missing/failing), conversations ' +
        'still in progress, and recorded errors grouped by stage and HTTP status. Read-only; works ' +
        'while a sync runs.',
    )
    .option('--json', JSON_HELP)
    .option('--runs <n>', 'how many recent runs to show', '5')
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--wait <duration>', READER_WAIT_HELP, '30s')
    .option('--space <slug>', 'only this space (repeatable)', (value: string, previous: string[] = []) => [...previous, value]);
  withShardOptions(withDbDirOption(command))
    .option('--config <file>', 'with --db-dir: also show the [[space]]s of this config not synced yet; with --shard-count, its pins (shard = K) decide what the shard owns (default: $CONVODUCK_CONFIG)')
    .addHelpText(
      'after',
      `
Examples:
  convoduck status
  convoduck status --db /data/support.duckdb --runs 10
  convoduck status --json | jq '.details.pending'
  convoduck status --json | jq '.listingGaps'     # [] when every listing added up
  convoduck status --space acme-prod              # one space of a multi-space database
  convoduck status --db-dir /data/spaces          # every space file of the folder
  convoduck status --db-dir /data/spaces --config spaces.toml   # and the config's spaces not synced yet
  convoduck status --db-dir /data/spaces --shard-count 3 --shard-index 1 --json | jq '.shard.spaces'`,
    )
    .action(async (flags: StatusFlags) => {
      const runs = parsePositiveInt('--runs', flags.runs);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const [{ getStatus }, { renderStatus, spaceState }, { busyNotice }] = await Promise.all([
        import('../../status/read-status.js'),
        import('../status/render.js'),
        import('../../store/read-only.js'),
      ]);
      const onWait = () => process.stderr.write(busyNotice(flags.wait));
      const layout = resolveDbLayout(flags);
      const spec = shardSpecOf(flags);
      if (layout.kind === 'dir') {
        const [{ readDirStatus }, { renderDirStatus, dirSpaceStates }, { countStates }] = await Promise.all([
          import('../status/status-dir.js'),
          import('../status/render-dir.js'),
          import('../tally.js'),
        ]);
        const status = await readDirStatus({ dir: layout.dir, only: flags.space ?? [], spec, configFile: configFilePath(flags.config), runs, lockTimeoutMs, onWait });
        const json = () => JSON.stringify({ ...status, tally: countStates(dirSpaceStates(status.spaces)) }, null, 2) + '\n';
        process.stdout.write(flags.json ? json() : renderDirStatus(status));
        return;
      }
      if (spec !== null) throw new UsageError('--shard-count shares the space files of a folder among shards — add --db-dir DIR');
      const status = await getStatus(layout.path, { runs, spaces: flags.space ?? [], lockTimeoutMs, onWait });
      if (!flags.json) return void process.stdout.write(renderStatus(status));
      // over several spaces, the tally the text shows under the spaces table
      const { countStates } = await import('../tally.js');
      const tally = status.spaces.length > 1 ? { tally: countStates(status.spaces.map(spaceState)) } : {};
      process.stdout.write(JSON.stringify({ ...status, ...tally }, null, 2) + '\n');
    });
}
