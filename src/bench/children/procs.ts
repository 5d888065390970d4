// Child processes of the benchmark: a simulator (sim-child) and a sync (sync-child), each in its
// own process so that neither's CPU or memory is counted as the other's.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SimulatorOptions } from '../../simulator/index.js';
import type { SyncSummary } from '../../crawler/sync.js';
import { childFailure } from './child-error.js';

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** The first line sim-child prints: where it listens and what it serves. */
export interface SimChildHello {
  baseUrl: string;
  apiKey: string;
  /** the space's slug */
  space: string;
  conversations: number;
  agents: number;
  tools: number;
  /** how long generating the dataset and starting took, in the child (ms) */
  startMs: number;
}

export type SimChild = LineChild<SimChildHello>;

export type SimChildOptions = Omit<SimulatorOptions, 'now' | 'dataset' | 'onRequest' | 'logRequests'> & {
  nowIso?: string;
  keepLog?: boolean;
};

export async function startSimChild(options: SimChildOptions): Promise<SimChild> {
  return startLineChild<SimChildHello>('./sim-child.js', options, 'simulator process');
}

/** A child speaking the line protocol of sim-child: a hello line, then one answer line per command. */
export type LineChild<H> = H & {
  command<T>(cmd: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
};

export async function startLineChild<H>(script: string, args: unknown, what: string): Promise<LineChild<H>> {
  const child = spawn(process.execPath, [here(script), JSON.stringify(args)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines = createInterface({ input: child.stdout });
  const queue: ((line: string) => void)[] = [];
  const early: string[] = [];
  lines.on('line', (line) => {
    const next = queue.shift();
    if (next) next(line);
    else early.push(line);
  });
  const nextLine = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const e = early.shift();
      if (e !== undefined) {
        resolve(e);
        return;
      }
      queue.push(resolve);
      void exited.then(({ code, signal }) => reject(childFailure(what, code, signal, stderr)));
    });
  const hello = JSON.parse(await nextLine()) as H;
  let chain: Promise<unknown> = Promise.resolve();
  return {
    ...hello,
    command<T>(cmd: Record<string, unknown>): Promise<T> {
      const p = chain.then(async () => {
        child.stdin.write(`${JSON.stringify(cmd)}\n`);
        return JSON.parse(await nextLine()) as T;
      });
      chain = p.catch(() => undefined);
      return p;
    },
    async close(): Promise<void> {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface SyncChildResult {
  summary: SyncSummary;
  maxRssMb: number;
  userCpuSec: number;
  systemCpuSec: number;
  wallSec: number;
}

export interface SyncChildArgs {
  baseUrl: string;
  apiKey: string;
  dbPath: string;
  windowMs?: number;
  maxRpm?: number;
  concurrency?: number;
  /** false: the sync keeps no search index (what indexing costs is measured against it) */
  searchIndex?: boolean;
}

/** Runs one sync in a child process and returns what it printed. */
export async function runSyncChild(args: SyncChildArgs): Promise<SyncChildResult> {
  const { apiKey, ...rest } = args;
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [here('./sync-child.js'), JSON.stringify(rest)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CONVODUCK_API_KEY: apiKey },
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  const last = stdout.trim().split('\n').pop() ?? '';
  if (code !== 0 || !last.startsWith('{')) throw childFailure('sync process', code, signal, stderr);
  return JSON.parse(last) as SyncChildResult;
}
