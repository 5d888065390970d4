// Reports at scale: every report over a database of N conversations generated straight in DuckDB.

import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultSqlDir, runReports } from '../reports/index.js';
import { Database } from '../store/database.js';
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
}

export async function benchReports(n: number, workDir: string, log: (s: string) => void): Promise<ReportsResult> {
  const dbPath = join(workDir, 'reports-scale.duckdb');
  rmSync(dbPath, { force: true });
  rmSync(`${dbPath}.wal`, { force: true });
  try {
    log(`reports: generating ${n} conversations in DuckDB`);
    let t = performance.now();
    const counts = await Database.with(dbPath, (db) => generateScaleData(db, n));
    const generateSec = (performance.now() - t) / 1000;
    const dbMb = statSync(dbPath).size / 1e6;

    // One `report` run of every report, with a trivial report sorted first: the time until it is
    // written is opening the database and building the base relations every report reads.
    const sqlDir = join(workDir, 'sql');
    mkdirSync(sqlDir, { recursive: true });
    for (const f of readdirSync(defaultSqlDir())) if (f.endsWith('.sql')) copyFileSync(join(defaultSqlDir(), f), join(sqlDir, f));
    const BASE = '_base';
    writeFileSync(join(sqlDir, `${BASE}.sql`), '-- Title: nothing (times the base relations)\nSELECT 1 AS x\n');

    log('reports: every report');
    const reports: ReportsResult['reports'] = [];
    let baseSec = 0;
    t = performance.now();
    let last = t;
    await runReports({
      dbPath,
      outDir: join(workDir, 'reports-out'),
      sqlDir,
      onReport: (r) => {
        const now = performance.now();
        if (r.name === BASE) baseSec = (now - last) / 1000;
        else reports.push({ name: r.name, seconds: (now - last) / 1000, rows: r.rows });
        last = now;
      },
    });
    const totalSec = (performance.now() - t) / 1000;
    return { counts, generateSec, dbMb, baseSec, reports, totalSec };
  } finally {
    rmSync(dbPath, { force: true });
    rmSync(`${dbPath}.wal`, { force: true });
  }
}
