// The flags of the folder layout and of shards, spelled the same on every command that has them.

import type { Command } from 'commander';

export const DB_DIR_HELP = 'a folder of one DuckDB file per space, DIR/<slug>.duckdb (default: $CONVODUCK_DB_DIR); instead of --db';

/** --db-dir; "instead of --db" only on a command that has --db (added before it). */
export function withDbDirOption(command: Command): Command {
  const hasDb = command.options.some((o) => o.long === '--db');
  return command.option('--db-dir <dir>', hasDb ? DB_DIR_HELP : DB_DIR_HELP.replace(/; instead of --db$/, ''));
}

/** --shard-count / --shard-index, and --config for the spaces' pins (`shard = K`). */
export function withShardOptions(command: Command): Command {
  return command
    .option('--shard-count <n>', 'with --db-dir: the job has this many shards; act on the spaces this shard owns')
    .option('--shard-index <i>', 'this shard, 0 … N−1 (default: $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it)');
}

export interface ShardFlags {
  shardCount?: string;
  shardIndex?: string;
}
