// Reports over a lake: every report over a database of N generated conversations, then over the
// same data exported as a `space,day` Parquet lake (`report --lake`), run after run alternately,
// so that both see the same load; and whether the two runs' files are the same bytes.

import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportTables } from '../exports/export.js';
import { defaultSqlDir, runReports } from '../reports/index.js';
import { openLake } from '../sources/lake.js';
import { Database } from '../store/database.js';
import type { ReadTarget } from '../store/read-only.js';
import { fixed, median } from './measure.js';
import { int, secs, table, type Goal } from './print.js';
import { generateScaleData, type ScaleCounts } from './scale-data.js';

export interface LakeRun {
  /** one `report` run of every report, the median of the runs */
  totalSec: number;
  runTotalsSec: number[];
  reports: { name: string; seconds: number }[];
}

export interface LakeResult {
  counts: ScaleCounts;
  dbMb: number;
  exportSec: number;
  lakeMb: number;
  lakeFiles: number;
  overFile: LakeRun;
  overLake: LakeRun;
  /** lake ÷ file, of the medians */
  ratio: number;
  /** report files (CSV) the two gave, and how many differ byte for byte */
  files: number;
  differing: string[];
}

const RUNS = 3;
const BASE = '_base';

function sizeOf(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      bytes += statSync(join(e.parentPath, e.name)).size;
      files++;
    }
  }
  return { bytes, files };
}

async function timeRun(target: ReadTarget, sqlDir: string, outDir: string): Promise<{ totalSec: number; reports: LakeRun['reports'] }> {
  const reports: LakeRun['reports'] = [];
  const t = performance.now();
  let last = t;
  await runReports({
    dbPath: target,
    outDir,
    sqlDir,
    onReport: (r) => {
      const now = performance.now();
      reports.push({ name: r.name, seconds: (now - last) / 1000 });
      last = now;
    },
  });
  return { totalSec: (performance.now() - t) / 1000, reports };
}

function summarise(runs: { totalSec: number; reports: LakeRun['reports'] }[]): LakeRun {
  return {
    totalSec: median(runs.map((r) => r.totalSec)),
    runTotalsSec: runs.map((r) => r.totalSec),
    reports: runs[0]!.reports.map((r) => ({ name: r.name, seconds: median(runs.map((x) => x.reports.find((y) => y.name === r.name)!.seconds)) })),
  };
}

export async function benchLake(n: number, workDir: string, log: (s: string) => void): Promise<LakeResult> {
  const dbPath = join(workDir, 'lake-bench.duckdb');
  const lakeDir = join(workDir, 'lake');
  rmSync(dbPath, { force: true });
  rmSync(lakeDir, { recursive: true, force: true });
  try {
    log(`lake: generating ${n} conversations in DuckDB`);
    const counts = await Database.with(dbPath, (db) => generateScaleData(db, n));
    const dbMb = statSync(dbPath).size / 1e6;
    log('lake: exporting them as a space,day Parquet lake');
    let t = performance.now();
    await exportTables(dbPath, { outDir: lakeDir, partitionBy: 'space,day' });
    const exportSec = (performance.now() - t) / 1000;
    const lake = sizeOf(lakeDir);

    const sqlDir = join(workDir, 'lake-sql');
    mkdirSync(sqlDir, { recursive: true });
    for (const f of readdirSync(defaultSqlDir())) if (f.endsWith('.sql')) copyFileSync(join(defaultSqlDir(), f), join(sqlDir, f));
    // sorted first, it times opening the source and building the shared relations every report reads
    writeFileSync(join(sqlDir, `${BASE}.sql`), '-- Title: nothing (times the base relations)\nSELECT 1 AS x\n');
    const lakeTarget: ReadTarget = { label: `lake ${lakeDir}`, open: () => openLake(lakeDir) };
    const overFile: { totalSec: number; reports: LakeRun['reports'] }[] = [];
    const overLake: typeof overFile = [];
    for (let run = 1; run <= RUNS; run++) {
      log(`lake: every report over the file, then over the lake, run ${run} of ${RUNS}`);
      overFile.push(await timeRun(dbPath, sqlDir, join(workDir, 'lake-out-file')));
      overLake.push(await timeRun(lakeTarget, sqlDir, join(workDir, 'lake-out-lake')));
    }
    const names = readdirSync(join(workDir, 'lake-out-file')).filter((f) => f.endsWith('.csv') && f !== `${BASE}.csv`).sort();
    const differing = names.filter((f) => !readFileSync(join(workDir, 'lake-out-file', f)).equals(readFileSync(join(workDir, 'lake-out-lake', f))));
    const file = summarise(overFile);
    const overLakeRun = summarise(overLake);
    return {
      counts,
      dbMb,
      exportSec,
      lakeMb: lake.bytes / 1e6,
      lakeFiles: lake.files,
      overFile: file,
      overLake: overLakeRun,
      ratio: overLakeRun.totalSec / file.totalSec,
      files: names.length,
      differing,
    };
  } finally {
    rmSync(dbPath, { force: true });
    rmSync(`${dbPath}.wal`, { force: true });
    rmSync(lakeDir, { recursive: true, force: true });
  }
}

const title = (r: LakeResult): string =>
  `${r.overFile.reports.length - 1} reports over ${int(r.counts.conversations)} conversations (${int(r.counts.transcriptTurns)} turns), ` +
  `one DuckDB file of ${fixed(r.dbMb, 0)} MB beside a space,day Parquet lake of ${fixed(r.lakeMb, 0)} MB in ${int(r.lakeFiles)} files (exported in ${secs(r.exportSec)} s)`;

/** The rows: every report in one run, then the reports by their time over the lake. */
function rows(r: LakeResult, bold: (s: string) => string): string[][] {
  const byName = new Map(r.overFile.reports.map((x) => [x.name, x.seconds]));
  const reports = r.overLake.reports.filter((x) => x.name !== BASE).sort((a, b) => b.seconds - a.seconds);
  const base = (run: LakeRun) => run.reports.find((x) => x.name === BASE)?.seconds ?? 0;
  return [
    [
      `all reports, one \`report\` run: the median of ${r.overFile.runTotalsSec.length} (file ${r.overFile.runTotalsSec.map(secs).join(', ')} s; lake ${r.overLake.runTotalsSec.map(secs).join(', ')} s)`,
      bold(`${secs(r.overFile.totalSec)} s`),
      bold(`${secs(r.overLake.totalSec)} s`),
      bold(fixed(r.ratio, 2)),
    ],
    [
      'opening the source and the shared relations the reports read (`sql/shared/`)',
      `${secs(base(r.overFile))} s`,
      `${secs(base(r.overLake))} s`,
      base(r.overFile) > 0 ? fixed(base(r.overLake) / base(r.overFile), 2) : '–',
    ],
    ...reports.map((x) => {
      const file = byName.get(x.name) ?? 0;
      return [`\`${x.name}\``, `${secs(file)} s`, `${secs(x.seconds)} s`, file > 0 ? fixed(x.seconds / file, 2) : '–'];
    }),
  ];
}

const HEADERS = ['report', 'one DuckDB file', 'the lake (`--lake`)', 'lake ÷ file'];

function sameBytes(r: LakeResult): string {
  return r.differing.length === 0
    ? `every one of the ${r.files} CSV files the same bytes over both`
    : `${r.files - r.differing.length} of ${r.files} CSV files the same bytes over both; different: ${r.differing.join(', ')}`;
}

export function printLake(r: LakeResult, goals: Goal[]): void {
  console.log(`\nReports over a lake: ${title(r)}`);
  console.log(table(HEADERS, rows(r, (s) => s)));
  console.log(sameBytes(r));
  goals.push({
    what: `reports over a lake of ${int(r.counts.conversations)} conversations: the same bytes as over one file`,
    goal: 'every report',
    measured: r.differing.length === 0 ? `${r.files} of ${r.files}` : `${r.files - r.differing.length} of ${r.files}`,
    met: r.differing.length === 0,
  });
}

/** docs/performance.md's block. */
export function lakeDocTable(r: LakeResult): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const body = [line(HEADERS), `|${HEADERS.map(() => '---').join('|')}|`, ...rows(r, (s) => `**${s}**`).map(line)].join('\n');
  return `${title(r)}:\n\n${body}\n\n${sameBytes(r)}.`;
}
