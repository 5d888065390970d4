// Which shard of a job owns a space: rendezvous (highest-random-weight) hashing of the space's
// slug, so that changing the shard count moves only the spaces the new count must move, and
// every process computes the same answer without talking to the others.

import { createHash } from 'node:crypto';
import { InvalidInputError } from './errors.js';

export interface ShardSpec {
  /** how many shards the job has (≥ 1) */
  count: number;
  /** this process's shard, 0 … count − 1 */
  index: number;
}

function weight(slug: string, shard: number): bigint {
  return createHash('sha256').update(`${slug}\u0000${shard}`).digest().readBigUInt64BE(0);
}

/** The shard that owns `slug` among `count`: an explicit `pinned` shard wins. */
export function shardOf(slug: string, count: number, pinned?: number): number {
  if (pinned !== undefined) {
    if (!Number.isInteger(pinned) || pinned < 0 || pinned >= count) {
      throw new InvalidInputError(`space ${slug} is pinned to shard ${pinned}, but the job has shards 0 … ${count - 1} — change its shard or the shard count`);
    }
    return pinned;
  }
  let best = 0;
  let bestWeight = -1n;
  for (let shard = 0; shard < count; shard++) {
    const w = weight(slug, shard);
    if (w > bestWeight) {
      best = shard;
      bestWeight = w;
    }
  }
  return best;
}

/** Whether the shard `spec.index` owns `slug`. */
export function ownsSpace(spec: ShardSpec, slug: string, pinned?: number): boolean {
  return shardOf(slug, spec.count, pinned) === spec.index;
}

/**
 * The shard spec from flags and the environment: `--shard-index` wins over JOB_COMPLETION_INDEX
 * (what a Kubernetes Indexed Job gives each pod). Null when no shard count is given.
 */
export function resolveShardSpec(count: string | undefined, index: string | undefined, env: NodeJS.ProcessEnv = process.env): ShardSpec | null {
  if (count === undefined) {
    if (index !== undefined) throw new InvalidInputError('--shard-index without --shard-count — give both, or neither');
    return null;
  }
  const n = wholeNumber(count);
  if (n === null || n < 1) throw new InvalidInputError(`--shard-count ${JSON.stringify(count)} is not a whole number ≥ 1 — give how many shards the job has`);
  const raw = index ?? env.JOB_COMPLETION_INDEX;
  if (raw === undefined) {
    throw new InvalidInputError('--shard-count without a shard index — give --shard-index I, or run as a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)');
  }
  const i = wholeNumber(raw);
  const from = index !== undefined ? '--shard-index' : 'JOB_COMPLETION_INDEX';
  if (i === null || i >= n) throw new InvalidInputError(`${from} ${JSON.stringify(raw)} is not a shard of 0 … ${n - 1} — give an index below --shard-count`);
  return { count: n, index: i };
}

function wholeNumber(text: string): number | null {
  return /^\d{1,6}$/.test(text.trim()) ? Number(text.trim()) : null;
}
