// Reports at scale: every report over a database of N conversations generated straight in DuckDB.

import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSqlDir, runReports } from '../reports/index.js';
import { Database } from '../store/database.js';
import { median } from './measure.js';
import { generateScaleData, type ScaleCounts } from './scale-data.js';

export interface ReportsResult {
  counts: ScaleCounts;
  generateSec: number;
  dbMb: number;
  /** opening the database and building the filtered relations every report reads (once per run) */
  baseSec: number;
  reports: { name: string; seconds: number; rows: number }[];
  /** one `report` run of every report, base included */
  totalSec: number;
  /** the total of each run, in order: the figures above are their medians, each on its own */
  runTotalsSec: number[];
}

/** `report` runs measured: one run's time moves with a shared host's load, their median less. */
const RUNS = 3;

export async function benchReports(n: number, workDir: string, log: (s: string) => void): Promise<ReportsResult> {
  const dbPath = join(workDir, 'reports-scale.duckdb');
  rmSync(dbPath, { force: true });
  rmSync(`${dbPath}.wal`, { force: true });
  try {
    log(`reports: generating ${n} conversations in DuckDB`);
    const t = performance.now();
    const counts = await Database.with(dbPath, (db) => generateScaleData(db, n));
    const generateSec = (performance.now() - t) / 1000;
    const dbMb = statSync(dbPath).size / 1e6;

    // Each `report` run is of every report, with a trivial report sorted first: the time until it
    // is written is opening the database and building the base relations every report reads.
    const sqlDir = join(workDir, 'sql');
    mkdirSync(sqlDir, { recursive: true });
    for (const f of readdirSync(defaultSqlDir())) if (f.endsWith('.sql')) copyFileSync(join(defaultSqlDir(), f), join(sqlDir, f));
    const BASE = '_base';
    writeFileSync(join(sqlDir, `${BASE}.sql`), '-- Title: nothing (times the base relations)\nSELECT 1 AS x\n');

    const runs: { baseSec: number; reports: ReportsResult['reports']; totalSec: number }[] = [];
    for (let run = 1; run <= RUNS; run++) {
      log(`reports: every report, run ${run} of ${RUNS}`);
      runs.push(await timeReports(dbPath, sqlDir, join(workDir, 'reports-out'), BASE));
    }
    const reports = runs[0]!.reports.map((r) => ({ ...r, seconds: median(runs.map((x) => x.reports.find((y) => y.name === r.name)!.seconds)) }));
    return {
      counts,
      generateSec,
      dbMb,
      baseSec: median(runs.map((r) => r.baseSec)),
      reports,
      totalSec: median(runs.map((r) => r.totalSec)),
      runTotalsSec: runs.map((r) => r.totalSec),
    };
  } finally {
    rmSync(dbPath, { force: true });
    rmSync(`${dbPath}.wal`, { force: true });
  }
}

/** One `report` run of every report in `sqlDir`: the time until each is written. */
async function timeReports(
  dbPath: string,
  sqlDir: string,
  outDir: string,
  base: string,
): Promise<{ baseSec: number; reports: ReportsResult['reports']; totalSec: number }> {
  const reports: ReportsResult['reports'] = [];
  let baseSec = 0;
  const t = performance.now();
  let last = t;
  await runReports({
    dbPath,
    outDir,
    sqlDir,
    onReport: (r) => {
      const now = performance.now();
      if (r.name === base) baseSec = (now - last) / 1000;
      else reports.push({ name: r.name, seconds: (now - last) / 1000, rows: r.rows });
      last = now;
    },
  });
  return { baseSec, reports, totalSec: (performance.now() - t) / 1000 };
}
