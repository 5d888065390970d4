// `status --db-dir DIR`: every space file's status read as `status --db` reads one, then shown as
// one document: the shard and the spaces it owns, one line per space, and each file's status.

import type { StatusReport } from '../../status/report.js';
import type { ShardSpec } from '../../shared/shards.js';
import { scopedSpaceFiles, type ShardScope } from '../db-dir/space-files.js';

export interface SpaceFileStatus {
  space: string;
  /** the space's file; null when the config names the space but no sync has made its file yet */
  file: string | null;
  status: StatusReport | null;
}

export interface DirStatus {
  dbDir: string;
  /** only when sharded */
  shard?: ShardScope;
  spaces: SpaceFileStatus[];
}

export interface DirStatusOptions {
  dir: string;
  only: readonly string[];
  spec: ShardSpec | null;
  configFile: string | null;
  runs: number;
  lockTimeoutMs: number;
  onWait: () => void;
}

export async function readDirStatus(options: DirStatusOptions): Promise<DirStatus> {
  const { getStatus } = await import('../../status/read-status.js');
  const { spaces, scope } = scopedSpaceFiles(options.dir, { only: options.only, spec: options.spec, configFile: options.configFile, configSpaces: true });
  const out: SpaceFileStatus[] = [];
  // one file at a time: each read waits for its own file's sync, as `status --db` does
  for (const s of spaces) {
    const status = s.path === null ? null : await getStatus(s.path, { runs: options.runs, lockTimeoutMs: options.lockTimeoutMs, onWait: options.onWait });
    out.push({ space: s.slug, file: s.path, status });
  }
  return { dbDir: options.dir, ...(scope ? { shard: scope } : {}), spaces: out };
}
