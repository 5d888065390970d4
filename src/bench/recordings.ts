// The recordings section of `npm run bench`: the same sync of a fresh database, without and with
// `--recordings DIR`, against one simulator whose key allows `rateLimit` per window. What it
// shows: the key's budget used by each (the downloads take none of it: the API requests are the
// same), the recordings' bytes per second, and the sync's peak RSS beside the one without them.

import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '../simulator/index.js';
import { Database } from '../store/database.js';
import { childFailure } from './children/child-error.js';
import { windowUse, type LogTuple } from './measure.js';
import { int, secs, table, type Goal } from './print.js';

export interface RecordingsBenchSettings {
  conversations: number;
  rateLimit: number;
  windowMs: number;
}

export interface RecordingsRun {
  recordings: boolean;
  exitCode: number | null;
  wallSec: number;
  maxRssMb: number;
  /** requests to the API (the key's) */
  apiRequests: number;
  detailRequests: number;
  /** the key's budget used over the run's whole windows */
  utilisation: number;
  downloads: number;
  stored: number;
  bytes: number;
  /** bytes stored ÷ the sync's wall time */
  bytesPerSec: number;
}

export interface RecordingsBenchResult {
  settings: RecordingsBenchSettings;
  runs: RecordingsRun[];
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export async function benchRecordings(s: RecordingsBenchSettings, workDir: string, log: (line: string) => void): Promise<RecordingsBenchResult> {
  const runs: RecordingsRun[] = [];
  for (const recordings of [false, true]) {
    // a simulator each: the same dataset (seed), a fresh key window
    const sim = await startSimulator({ seed: 77, conversations: s.conversations, days: 7, rateLimit: s.rateLimit, windowMs: s.windowMs, recordings: { slow: 0.05, slowBytesPerSecond: 64_000 } });
    const db = join(workDir, `recordings-${recordings}.duckdb`);
    const dir = join(workDir, `recordings-${recordings}`);
    const rusage = join(workDir, `recordings-${recordings}-rusage.json`);
    for (const p of [db, `${db}.wal`, dir, rusage]) rmSync(p, { recursive: true, force: true });
    try {
      log(`recordings: sync of ${int(s.conversations)} conversations ${recordings ? 'with' : 'without'} --recordings`);
      const args = ['sync', '--db', db, '--json', ...(recordings ? ['--recordings', dir] : [])];
      const child = spawn(process.execPath, [here('./children/cli-child.js'), ...args], {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NO_COLOR: '1',
          BENCH_RUSAGE_FILE: rusage,
          CONVODUCK_BASE_URL: sim.baseUrl,
          CONVODUCK_API_KEY: sim.apiKey,
          ...(s.windowMs !== 60_000 ? { CONVODUCK_RATE_WINDOW_MS: String(s.windowMs) } : {}),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (c, sg) => resolve({ code: c, signal: sg })));
      let usage: { maxRssMb: number; wallSec: number };
      try {
        usage = JSON.parse(readFileSync(rusage, 'utf8')) as { maxRssMb: number; wallSec: number };
      } catch {
        throw childFailure('recordings sync process', code, signal, stderr);
      }
      const api = sim.requestLog.filter((e) => e.kind !== 'recording' && e.client === 'key');
      const tuples: LogTuple[] = api.map((e) => [e.t, 0, e.status, e.kind]);
      const stored = recordings
        ? await Database.with(db, (d) => d.one<{ n: number; bytes: number }>(`SELECT count(*)::INTEGER AS n, coalesce(sum(bytes), 0)::DOUBLE AS bytes FROM recordings WHERE state = 'stored'`), { readOnly: true })
        : { n: 0, bytes: 0 };
      runs.push({
        recordings,
        exitCode: code,
        wallSec: usage.wallSec,
        maxRssMb: usage.maxRssMb,
        apiRequests: api.length,
        detailRequests: api.filter((e) => e.kind === 'conversation_detail').length,
        utilisation: windowUse(tuples, s.rateLimit, 0, s.windowMs).utilisation,
        downloads: sim.requestLog.filter((e) => e.kind === 'recording').length,
        stored: stored?.n ?? 0,
        bytes: stored?.bytes ?? 0,
        bytesPerSec: (stored?.bytes ?? 0) / usage.wallSec,
      });
    } finally {
      await sim.close();
    }
  }
  return { settings: s, runs };
}

export function printRecordings(r: RecordingsBenchResult, goals: Goal[], scaled: boolean): void {
  const s = r.settings;
  console.log(`\nRecordings: a sync of ${int(s.conversations)} conversations (${s.rateLimit} requests per ${secs(s.windowMs / 1000)} s), without and with --recordings`);
  console.log(
    table(
      ['sync', 'exit', 'wall s', 'API requests', 'budget used', 'downloads', 'stored', 'MB', 'MB/s', 'peak RSS MB'],
      r.runs.map((x) => [
        x.recordings ? 'with --recordings' : 'without',
        String(x.exitCode),
        secs(x.wallSec),
        int(x.apiRequests),
        `${(x.utilisation * 100).toFixed(1)}%`,
        int(x.downloads),
        int(x.stored),
        (x.bytes / 1e6).toFixed(1),
        (x.bytesPerSec / 1e6).toFixed(2),
        x.maxRssMb.toFixed(0),
      ]),
    ),
  );
  const [without, withRec] = r.runs;
  if (!without || !withRec) return;
  goals.push({
    what: 'recordings: API requests of a sync with them ÷ without (downloads take none of the budget)',
    goal: '= 1',
    measured: (withRec.apiRequests / without.apiRequests).toFixed(3),
    met: withRec.apiRequests === without.apiRequests,
  });
  goals.push({
    what: 'recordings: the key budget used with them ÷ without',
    goal: '≥ 0.95',
    measured: (withRec.utilisation / without.utilisation).toFixed(2),
    met: withRec.utilisation >= 0.95 * without.utilisation,
    scaled,
  });
}
