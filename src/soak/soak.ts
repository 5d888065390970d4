// The kill soak: every writer run in turn, each run SIGKILLed at a random moment of its usual
// duration, and after each run every file it writes read whole. A writer's first run goes
// unkilled and measures how long a run takes; the kill moments are drawn over that span.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Rng } from '../simulator/index.js';
import { Database } from '../store/database.js';
import { lastGoodPath } from '../store/last-good.js';
import { readWhole } from './read-whole.js';
import { setUpWriters, WRITERS, type Round, type Writer, type WriterName } from './writers.js';

export interface SoakSettings {
  /** SIGKILLs to land in all (at least; shared evenly among the writers) */
  kills: number;
  /** conversations of the main simulated space */
  conversations: number;
  seed: number;
  /** scratch folder (files of failed reads are kept under `failed/`) */
  root: string;
  /** the built CLI (dist/cli/main.js) */
  cli: string;
  only?: readonly WriterName[];
  onProgress?: (line: string) => void;
}

/** A file that did not open or read in full after a run. */
export interface SoakFailure {
  writer: WriterName;
  round: number;
  /** ms after the start the kill was sent (null: the run was not killed) */
  killedAfterMs: number | null;
  /** after what: `read` (as the kill left it), `copy` (the last-good copy beside it), `reopen` (opened for writing afterwards), `run` (the next run's own opening), `final` */
  stage: 'read' | 'copy' | 'reopen' | 'run' | 'final';
  file: string;
  error: string;
  /** where the file and what lay beside it were copied */
  keptAt: string | null;
}

export interface WriterFigures {
  writer: WriterName;
  runs: number;
  kills: number;
  /** runs that ended before their kill was due (or were not to be killed) */
  finished: number;
  /** median duration of an unkilled run (ms) */
  medianRunMs: number;
  /** files read in full after the writer's runs */
  reads: number;
  failures: number;
  /** unkilled runs that exited with a code other than the writer's own (first stderr line of each) */
  unexpectedExits: string[];
}

export interface SoakResult {
  kills: number;
  runs: number;
  reads: number;
  failures: SoakFailure[];
  writers: WriterFigures[];
  seconds: number;
}

/** Errors that say a file is damaged (as opposed to a command's own refusal). */
const DAMAGE = /Corrupt|checksum|cannot open database|INTERNAL Error|FATAL|Failure while replaying WAL|invalidated/i;

interface RunResult {
  killed: boolean;
  code: number | null;
  ms: number;
  stderr: string;
}

function runCli(cli: string, round: Round, killAfterMs: number | null): Promise<RunResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [cli, ...round.args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...round.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-8_000);
  });
  const timer = killAfterMs === null ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ killed: signal === 'SIGKILL', code, ms: performance.now() - started, stderr });
    });
  });
}

/** Copies `file` and everything beside it that shares its name (WAL, lock, spill folders). */
function keep(file: string, to: string): string | null {
  try {
    mkdirSync(to, { recursive: true });
    const name = basename(file);
    for (const entry of readdirSync(dirname(file))) {
      if (entry === name || entry.startsWith(`${name}.`)) cpSync(join(dirname(file), entry), join(to, entry), { recursive: true });
    }
    return to;
  } catch {
    return null;
  }
}

const median = (xs: number[]): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

export async function runSoak(settings: SoakSettings): Promise<SoakResult> {
  const started = performance.now();
  const rng = new Rng(settings.seed);
  const only = settings.only ?? WRITERS;
  const say = settings.onProgress ?? (() => undefined);
  say(`setting up ${only.length} writers (${settings.conversations} conversations)…`);
  const fixtures = await setUpWriters(settings.root, settings.cli, settings.conversations, settings.seed, only);
  const failures: SoakFailure[] = [];
  const figures = new Map<WriterName, WriterFigures & { durations: number[] }>(
    fixtures.writers.map((w) => [w.name, { writer: w.name, runs: 0, kills: 0, finished: 0, medianRunMs: 0, reads: 0, failures: 0, unexpectedExits: [], durations: [] }]),
  );
  let kills = 0;
  let runs = 0;
  let reads = 0;

  const fail = (w: Writer, round: number, killedAfterMs: number | null, stage: SoakFailure['stage'], file: string, error: string): void => {
    const keptAt = keep(file, join(settings.root, 'failed', `${runs}-${w.name}-${stage}`));
    failures.push({ writer: w.name, round, killedAfterMs, stage, file, error, keptAt });
    figures.get(w.name)!.failures++;
    say(`  FAILED ${w.name} round ${round} (${stage}, killed after ${killedAfterMs ?? '-'} ms): ${file}: ${error}`);
  };

  const readFile = async (w: Writer, round: number, killedAfterMs: number | null, stage: SoakFailure['stage'], file: string): Promise<boolean> => {
    reads++;
    figures.get(w.name)!.reads++;
    const read = await readWhole(file);
    if (read.error !== null) fail(w, round, killedAfterMs, stage, file, read.error);
    return read.error === null;
  };

  /** Opens `file` for writing as the next convoduck command would (WAL replayed, upgrade finished), closes it. */
  const reopen = async (w: Writer, round: number, killedAfterMs: number | null, file: string): Promise<boolean> => {
    try {
      (await Database.open(file)).close();
      return true;
    } catch (err) {
      fail(w, round, killedAfterMs, 'reopen', file, err instanceof Error ? err.message.split('\n')[0]! : String(err));
      return false;
    }
  };

  try {
    // each writer its share of the kills, so that every one is killed as often
    const share = Math.ceil(settings.kills / fixtures.writers.length);
    const maxRuns = share * fixtures.writers.length * 4 + fixtures.writers.length * 2;
    const rounds = new Map<WriterName, number>();
    while (fixtures.writers.some((w) => figures.get(w.name)!.kills < share) && runs < maxRuns) {
      for (const w of fixtures.writers) {
        const f = figures.get(w.name)!;
        if (f.kills >= share) continue;
        const i = rounds.get(w.name) ?? 0;
        rounds.set(w.name, i + 1);
        const round = w.round(i);
        // the first run measures; later ones are killed anywhere within the longest run seen
        const killAfterMs = f.durations.length === 0 ? null : Math.round(rng.float(0, Math.max(...f.durations)));
        const res = await runCli(settings.cli, round, killAfterMs);
        runs++;
        f.runs++;
        if (res.killed) {
          kills++;
          f.kills++;
        } else {
          f.finished++;
          f.durations.push(res.ms);
          if (!round.okCodes.includes(res.code ?? -1)) {
            const lines = res.stderr.trim().split('\n');
            const line = [...lines].reverse().find((l) => l.startsWith('convoduck:')) ?? lines.at(-1) ?? '';
            f.unexpectedExits.push(`exit ${res.code}: ${line}`);
            if (DAMAGE.test(res.stderr)) for (const file of round.files) fail(w, i, null, 'run', file, line);
          }
        }
        for (const file of round.files) {
          if (!existsSync(file)) {
            // a writer's first run (unkilled) makes its files: from then on a missing one is a lost store
            if (f.finished > 0) fail(w, i, res.killed ? killAfterMs : null, 'read', file, 'the file is gone');
            continue;
          }
          // the copy a sync keeps beside the file (store/last-good.ts) must read whole too
          if (existsSync(lastGoodPath(file))) await readFile(w, i, res.killed ? killAfterMs : null, 'copy', lastGoodPath(file));
          const whole = await readFile(w, i, res.killed ? killAfterMs : null, 'read', file);
          if (whole && round.throwaway && (await reopen(w, i, res.killed ? killAfterMs : null, file))) {
            await readFile(w, i, res.killed ? killAfterMs : null, 'reopen', file);
          }
        }
        if (runs % 10 === 0) say(`  ${kills} kills in ${runs} runs, ${failures.length} failed reads, ${Math.round((performance.now() - started) / 1000)} s`);
      }
    }
    // what the last run of each writer left, opened as the next command would
    for (const w of fixtures.writers) {
      const last = (rounds.get(w.name) ?? 1) - 1;
      for (const file of w.lasting) {
        if (!existsSync(file)) continue;
        if (await reopen(w, last, null, file)) await readFile(w, last, null, 'final', file);
      }
    }
  } finally {
    await fixtures.close();
  }
  return {
    kills,
    runs,
    reads,
    failures,
    writers: [...figures.values()].map(({ durations, ...f }) => ({ ...f, medianRunMs: Math.round(median(durations)) })),
    seconds: (performance.now() - started) / 1000,
  };
}
