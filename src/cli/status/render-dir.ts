// `status --db-dir` as text: the folder, the shard and what it owns, one line per space, then
// each space file's status exactly as `status --db FILE` shows it.

import { describeScope } from '../db-dir/space-files.js';
import { renderStatus, spaceGrid, spaceRow, spaceState } from './render.js';
import type { DirStatus, SpaceFileStatus } from './status-dir.js';
import { tallySpaces, type SpaceState } from '../tally.js';

/** Each space's state in the tally: a space without a file, or without a run in it, was never synced. */
export function dirSpaceStates(spaces: readonly SpaceFileStatus[]): SpaceState[] {
  return spaces.map(({ space, status }) => spaceState(status?.spaces.find((sp) => sp.space === space) ?? status?.spaces[0] ?? null));
}

export function renderDirStatus(s: DirStatus): string {
  const out = [`db dir     ${s.dbDir} (${s.spaces.length} space${s.spaces.length === 1 ? '' : 's'} shown)`];
  if (s.shard) out.push(`shard      ${describeScope(s.shard)}`);
  if (s.spaces.length === 0) return out.join('\n') + '\n';
  const rows = s.spaces.map(({ space, status }) => {
    if (status === null) return [space, '-', 'no file yet', '-', '0', '0', '0', '0'];
    const own = status.spaces.find((sp) => sp.space === space) ?? status.spaces[0];
    return own ? spaceRow({ ...own, space }, status.syncRunning) : [space, '-', 'none yet', '-', '0', '0', '0', '0'];
  });
  out.push('', ...spaceGrid(rows).map((line) => `  ${line}`));
  if (s.spaces.length > 1) out.push(`  ${tallySpaces(dirSpaceStates(s.spaces))}`);
  for (const { space, file, status } of s.spaces) {
    out.push('', `── space ${space} ──`);
    out.push(status === null ? `no file yet: the first \`convoduck sync --db-dir\` of its shard creates ${space}.duckdb` : renderStatus(status).trimEnd());
  }
  return out.join('\n') + '\n';
}
