// `--metrics-file FILE` of sync and alert: the job's health written for Prometheus after the run,
// whatever its outcome. A file that cannot be written is one line on stderr and leaves the run's
// exit code alone: the scrape then shows the metrics as stale, which is what alerts on them.

import { existsSync } from 'node:fs';
import { resolveDbLayout } from '../config/db-path.js';
import { listSpaceDbs } from '../../store/space-files.js';

/** The databases the metrics are read from: set by the action (a shard's own space files), else the layout's. */
export interface MetricsScope {
  dbPaths?: string[];
}

/** The command's action, then the metrics file when `--metrics-file` was given, whether the action threw or not. */
export function withMetricsFile<F extends { db?: string; dbDir?: string; metricsFile?: string }>(
  action: (flags: F, scope: MetricsScope) => Promise<void>,
): (flags: F) => Promise<void> {
  return async (flags: F) => {
    const scope: MetricsScope = {};
    try {
      await action(flags, scope);
    } finally {
      if (flags.metricsFile !== undefined) await writeMetricsAfterRun(scope.dbPaths ?? layoutPaths(flags), flags.metricsFile);
    }
  };
}

function layoutPaths(flags: { db?: string; dbDir?: string }): string[] {
  try {
    const layout = resolveDbLayout(flags);
    return layout.kind === 'file' ? [layout.path] : listSpaceDbs(layout.dir).map((s) => s.path);
  } catch {
    return [];
  }
}

async function writeMetricsAfterRun(dbPaths: string[], file: string): Promise<void> {
  const present = dbPaths.filter((p) => existsSync(p));
  if (present.length === 0) {
    const what = dbPaths.length === 1 ? `database ${dbPaths[0]} does not exist yet` : dbPaths.length === 0 ? 'this run synced no space' : 'no database of this run exists yet';
    process.stderr.write(`convoduck: no metrics written to ${file}: ${what}\n`);
    return;
  }
  try {
    const { writeMetricsFileOf } = await import('../../alerts/metrics.js');
    await writeMetricsFileOf(present, file, new Date());
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String((err as Error).message ?? err).split('\n')[0];
    process.stderr.write(`convoduck: no metrics written to ${file} (${reason}) — check that its folder exists and is writable\n`);
  }
}
