// Retention after a sync (`--retain-days`, `--erase-deleted`, or a space's `retain_days` and
// `erase_deleted`): the erasure itself is src/erase/retention.ts; this says in one line what went.

import { applyRetention, describeRetention, type RetentionPolicy } from '../../erase/retention.js';

export async function retainAfterSync(dbPath: string, policies: readonly RetentionPolicy[]): Promise<void> {
  const results = await applyRetention(dbPath, policies);
  const line = describeRetention(results);
  if (line !== null) process.stderr.write(`convoduck: ${line} (rows and bytes gone; see the erasures table)\n`);
}
