// Which of the config's spaces this `sync` crawls and where each is stored: one database file
// (`--db`), or a folder of one file per space (`--db-dir`); all of them, or those this shard of a
// job owns (`--shard-count`, `--shard-index` or $JOB_COMPLETION_INDEX, a space's `shard = K`).
// A folder and shards both name a space by its slug, so every [[space]] must give one.

import { resolveShardSpec, shardOf, type ShardSpec } from '../../shared/shards.js';
import { checkSpaceFileName } from '../../store/space-files.js';
import { resolveDbLayout, type DbLayout } from '../config/db-path.js';
import type { SpaceSettings } from '../config/settings.js';
import { UsageError } from '../errors.js';

export interface ShardFlags {
  db?: string;
  dbDir?: string;
  shardCount?: string;
  shardIndex?: string;
}

export interface SyncScope {
  layout: DbLayout;
  /** null: not sharded (every space of the config) */
  shard: ShardSpec | null;
  /** the config's spaces this run crawls, in the config's order */
  owned: SpaceSettings[];
  /** how many spaces the config lists */
  configured: number;
}

/** The layout and shard from the flags and environment (exit 2 when they contradict each other). */
export function resolveLayoutAndShard(flags: ShardFlags, env: NodeJS.ProcessEnv = process.env): Pick<SyncScope, 'layout' | 'shard'> {
  const layout = resolveDbLayout({ db: flags.db, dbDir: flags.dbDir }, env);
  return { layout, shard: resolveShardSpec(flags.shardCount, flags.shardIndex, env) };
}

/** Whether the run needs the config file's spaces by slug (a folder of space files, or shards). */
export function needsSlugs(scope: Pick<SyncScope, 'layout' | 'shard'>): boolean {
  return scope.layout.kind === 'dir' || scope.shard !== null;
}

/** The spaces this run owns; every space must name its slug when the layout or shards need it. */
export function ownedSpaces(spaces: SpaceSettings[], scope: Pick<SyncScope, 'layout' | 'shard'>, configFile: string | null): SyncScope {
  if (needsSlugs(scope)) {
    const why = scope.layout.kind === 'dir' ? '--db-dir stores each space in a file named by its slug' : 'shards own spaces by slug';
    if (configFile === null) {
      throw new UsageError(`${why}: give a config file (--config or CONVODUCK_CONFIG) whose every [[space]] names its slug`);
    }
    const unnamed = spaces.find((s) => s.slug === undefined);
    if (unnamed) throw new UsageError(`${unnamed.label} in config ${configFile} names no slug, and ${why} — add slug = "…" to every [[space]]`);
    if (scope.layout.kind === 'dir') for (const s of spaces) checkSpaceFileName(s.slug!);
  }
  const { shard } = scope;
  const owned = shard === null ? spaces : spaces.filter((s) => shardOf(s.slug!, shard.count, s.shard) === shard.index);
  return { ...scope, owned, configured: spaces.length };
}

/** The line that says which spaces this shard owns (null when not sharded). */
export function describeShard(scope: SyncScope): string | null {
  if (scope.shard === null) return null;
  const { count, index } = scope.shard;
  const names = scope.owned.map((s) => s.slug!).join(', ');
  if (scope.owned.length === 0) return `shard ${index} of ${count} owns none of the config's ${scope.configured} spaces: nothing to sync`;
  return `shard ${index} of ${count} owns ${scope.owned.length} of the config's ${scope.configured} spaces: ${names}`;
}
