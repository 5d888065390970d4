// `forget --db-dir DIR`: a conversation lives in one space file, so each selector is taken to
// the files that hold what it picks. Every file is read first (nothing changes while an --id is
// unknown to all of them); then each file that holds something is erased and rewritten in turn.

import type { ForgetResult } from '../../erase/forget.js';
import { InvalidInputError } from '../../shared/errors.js';
import { spaceFilesIn } from '../db-dir/space-files.js';

export interface DirForgetOptions {
  dir: string;
  ids: readonly string[];
  sessionRefs: readonly string[];
  matches: readonly string[];
  dryRun: boolean;
  lockTimeoutMs: number;
}

/** What one space file lost (or, in a dry run, would). */
export interface FileForgetResult {
  file: string;
  result: ForgetResult;
}

export async function forgetInDir(options: DirForgetOptions, onFile: (done: FileForgetResult) => Promise<void>): Promise<FileForgetResult[]> {
  const { forget, idsHeld, parseSelectors } = await import('../../erase/forget.js');
  const { ids } = parseSelectors(options);
  const files = spaceFilesIn(options.dir);
  const { lockTimeoutMs } = options;

  const held = new Map<string, string[]>();
  for (const { path } of files) held.set(path, await idsHeld(path, ids, lockTimeoutMs));
  const nowhere = ids.filter((id) => ![...held.values()].some((h) => h.includes(id)));
  if (nowhere.length > 0) {
    const more = nowhere.length > 1 ? ` (and ${nowhere.length - 1} more)` : '';
    throw new InvalidInputError(
      `forget: no conversation ${JSON.stringify(nowhere[0])}${more} in any space file of ${options.dir} — check the id (convoduck query "SELECT id FROM conversations"); nothing was erased`,
    );
  }

  // read-only first: what each file would lose, so a file that holds nothing is never opened for writing
  const plans: { file: string; selectors: DirForgetOptions; preview: ForgetResult }[] = [];
  for (const { path } of files) {
    const selectors = { ...options, ids: held.get(path)! };
    if (selectors.ids.length + selectors.sessionRefs.length + selectors.matches.length === 0) continue;
    const preview = await forget({ dbPath: path, ...selectors, dryRun: true, lockTimeoutMs });
    if (preview.erased.length + preview.alreadyErased.length > 0) plans.push({ file: path, selectors, preview });
  }
  const done: FileForgetResult[] = [];
  for (const { file, selectors, preview } of plans) {
    const result = options.dryRun || preview.erased.length === 0 ? preview : await forget({ dbPath: file, ...selectors, dryRun: false, lockTimeoutMs });
    done.push({ file, result });
    await onFile({ file, result });
  }
  return done;
}
