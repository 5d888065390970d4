// The commands over a folder of one DuckDB file per space (`--db-dir DIR`): which space files a
// command works on (every file, those of --space, or those a shard owns), so that each command
// runs its one-database code once per file and only merges what they print.

import { existsSync } from 'node:fs';
import { readConfigEntries, SettingsError } from '../config/settings.js';
import { UsageError } from '../errors.js';
import { listSpaceDbs } from '../../store/space-files.js';
import { resolveShardSpec, shardOf, type ShardSpec } from '../../shared/shards.js';

/** One space of the folder: its slug and its file (null: the config names it, no sync has made its file yet). */
export interface SpaceFile {
  slug: string;
  path: string | null;
}

/** The shard a command runs as and the spaces it owns, as status, check and export say it. */
export interface ShardScope {
  count: number;
  index: number;
  /** the slugs it owns */
  spaces: string[];
}

/** The space files in DIR, sorted by slug; a missing folder or one without any is refused. */
export function spaceFilesIn(dir: string): { slug: string; path: string }[] {
  if (!existsSync(dir)) throw new UsageError(`--db-dir ${dir} does not exist — give the folder \`convoduck sync --db-dir\` writes, or sync into it first`);
  const files = listSpaceDbs(dir);
  if (files.length === 0) {
    throw new UsageError(`--db-dir ${dir} holds no space file (<slug>.duckdb) — give the folder \`convoduck sync --db-dir\` writes, or sync into it first`);
  }
  return files;
}

/** Only the spaces asked for by --space (none asked: all); a slug the folder does not hold is refused. */
export function pickSpaces<T extends { slug: string }>(spaces: T[], only: readonly string[], dir: string): T[] {
  if (only.length === 0) return spaces;
  const known = spaces.map((s) => s.slug);
  const unknown = [...new Set(only)].filter((s) => !known.includes(s));
  if (unknown.length > 0) {
    throw new UsageError(`no space ${unknown.map((s) => JSON.stringify(s)).join(', ')} in --db-dir ${dir} — known: ${known.join(', ')}`);
  }
  return spaces.filter((s) => only.includes(s.slug));
}

/** `--shard-count` / `--shard-index` (or JOB_COMPLETION_INDEX), checked; null when not sharded. */
export function shardSpecOf(flags: { shardCount?: string; shardIndex?: string }, env: NodeJS.ProcessEnv = process.env): ShardSpec | null {
  return resolveShardSpec(flags.shardCount, flags.shardIndex, env);
}

/**
 * The slugs a config names and the shard each is pinned to (`shard = K`), for deciding which
 * shard owns a space; only the slugs are read, never the keys. Sharding needs every space's slug.
 */
export function configPins(file: string): Map<string, number | undefined> {
  const pins = new Map<string, number | undefined>();
  for (const entry of readConfigEntries(file)) {
    if (entry.slug === undefined) {
      throw new SettingsError(`config ${file} line ${entry.line}: [[space]] #${entry.index} names no slug — shards and space files need it: add slug = "…"`);
    }
    pins.set(entry.slug, entry.shard);
  }
  return pins;
}

/**
 * The spaces a shard owns among `spaces` (pins from the config win over the hash), and the scope
 * to report; unsharded, every space and a null scope.
 */
export function ownedFiles<T extends { slug: string }>(
  spaces: T[],
  spec: ShardSpec | null,
  pins: Map<string, number | undefined> = new Map(),
): { spaces: T[]; scope: ShardScope | null } {
  if (spec === null) return { spaces, scope: null };
  const owned = spaces.filter((s) => shardOf(s.slug, spec.count, pins.get(s.slug)) === spec.index);
  return { spaces: owned, scope: { count: spec.count, index: spec.index, spaces: owned.map((s) => s.slug) } };
}

/**
 * The spaces of the folder a command works on: the files, with a config (read when sharding, or
 * always with `configSpaces`) also its spaces that have no file yet; then those of --space; then
 * those the shard owns. With a config read, an empty or missing folder is its spaces before their
 * first sync (status previews what each shard will own).
 */
export function scopedSpaceFiles(
  dir: string,
  options: { only?: readonly string[]; spec: ShardSpec | null; configFile: string | null; configSpaces?: boolean },
): { spaces: SpaceFile[]; scope: ShardScope | null } {
  const readConfig = options.configFile !== null && (options.spec !== null || options.configSpaces === true);
  if (!readConfig && options.spec !== null && (!existsSync(dir) || listSpaceDbs(dir).length === 0)) {
    throw new UsageError(`--db-dir ${dir} holds no space file yet — add --config FILE (or set CONVODUCK_CONFIG) to see which of its spaces each shard owns`);
  }
  const files: SpaceFile[] = readConfig ? (existsSync(dir) ? listSpaceDbs(dir) : []) : spaceFilesIn(dir);
  let pins = new Map<string, number | undefined>();
  if (readConfig && options.configFile !== null) {
    pins = configPins(options.configFile);
    for (const slug of pins.keys()) if (!files.some((f) => f.slug === slug)) files.push({ slug, path: null });
    files.sort((a, b) => a.slug.localeCompare(b.slug));
  }
  return ownedFiles(pickSpaces(files, options.only ?? [], dir), options.spec, pins);
}

/** `1 of 3 owns 2 spaces: a, c` — what status, check and export print after `shard` when sharded. */
export function describeScope(scope: ShardScope): string {
  const n = scope.spaces.length;
  const owns = n === 0 ? 'no space' : `${n} space${n === 1 ? '' : 's'}: ${scope.spaces.join(', ')}`;
  return `${scope.index} of ${scope.count} owns ${owns}`;
}
