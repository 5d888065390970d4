// `--metrics-file FILE` of sync and alert: the job's health written for Prometheus after the run,
// whatever its outcome. A file that cannot be written is one line on stderr and leaves the run's
// exit code alone: the scrape then shows the metrics as stale, which is what alerts on them.

import { existsSync } from 'node:fs';
import { resolveDbPath } from '../config/db-path.js';

/** The command's action, then the metrics file when `--metrics-file` was given, whether the action threw or not. */
export function withMetricsFile<F extends { db?: string; metricsFile?: string }>(action: (flags: F) => Promise<void>): (flags: F) => Promise<void> {
  return async (flags: F) => {
    try {
      await action(flags);
    } finally {
      if (flags.metricsFile !== undefined) await writeMetricsAfterRun(resolveDbPath(flags.db), flags.metricsFile);
    }
  };
}

async function writeMetricsAfterRun(dbPath: string, file: string): Promise<void> {
  if (!existsSync(dbPath)) {
    process.stderr.write(`convoduck: no metrics written to ${file}: database ${dbPath} does not exist yet\n`);
    return;
  }
  try {
    const { writeMetricsFile } = await import('../../alerts/metrics.js');
    await writeMetricsFile(dbPath, file, new Date());
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String((err as Error).message ?? err).split('\n')[0];
    process.stderr.write(`convoduck: no metrics written to ${file} (${reason}) — check that its folder exists and is writable\n`);
  }
}
