// Many keys at once: one `convoduck sync --config` of N spaces, each key at its own limit, against
// simulators in another process. Does the one writer keep up with every key at full budget?

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { type LogTuple, windowUse } from './measure.js';
import { childFailure } from './children/child-error.js';
import { startLineChild } from './children/procs.js';
import type { SpacesChildHello, SpacesChildOptions } from './children/spaces-child.js';

export interface SpacesSettings {
  count: number;
  conversations: number;
  rateLimit: number;
  windowMs: number;
  latencyMs: number;
}

export interface SpacesResult {
  settings: SpacesSettings;
  /** what the keys allow together, details per second */
  budgetPerSec: number;
  exitCode: number | null;
  /** spaces by how their run ended */
  statuses: Record<string, number>;
  /** what the spaces that did not end well said, each message once */
  errors: string[];
  details: number;
  detailsPending: number;
  /** detail responses per second from the first to the last (all keys together) */
  detailsPerSec: number;
  /** each key's accepted requests in its whole windows ÷ its limit */
  utilisation: { min: number; median: number; max: number };
  /** the lowest single whole window of any key ÷ its limit */
  worstWindow: number;
  /** per key: its accepted requests in each whole window */
  keys: { space: string; windows: number[] }[];
  /** requests refused with 429, all keys */
  throttled: number;
  maxRssMb: number;
  cpuSec: number;
  seconds: number;
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** A config of every space, each key in its own environment variable. */
function configFile(spaces: SpacesChildHello['spaces']): string {
  return spaces
    .map((s, i) => `[[space]]\nbase_url = "${s.baseUrl}"\napi_key_env = "BENCH_KEY_${i + 1}"\nslug = "${s.space}"\n`)
    .join('\n');
}

export async function benchSpaces(s: SpacesSettings, workDir: string, log: (line: string) => void): Promise<SpacesResult> {
  log(`spaces: starting ${s.count} simulated spaces of ${s.conversations} conversations (${s.rateLimit} per ${s.windowMs / 1000} s each)`);
  const options: SpacesChildOptions = { ...s };
  const sims = await startLineChild<SpacesChildHello>('./spaces-child.js', options, 'spaces process');
  const dbPath = join(workDir, 'spaces.duckdb');
  const config = join(workDir, 'spaces.toml');
  const rusage = join(workDir, 'spaces-rusage.json');
  for (const p of [dbPath, `${dbPath}.wal`, rusage]) rmSync(p, { force: true });
  writeFileSync(config, configFile(sims.spaces));
  try {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      BENCH_RUSAGE_FILE: rusage,
      ...Object.fromEntries(sims.spaces.map((sp, i) => [`BENCH_KEY_${i + 1}`, sp.apiKey])),
      ...(s.windowMs !== 60_000 ? { CONVODUCK_RATE_WINDOW_MS: String(s.windowMs) } : {}),
    };
    log(`spaces: convoduck sync --config (${s.count} spaces)`);
    const child = spawn(process.execPath, [here('./children/cli-child.js'), 'sync', '--config', config, '--db', dbPath, '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (c, sg) => resolve({ code: c, signal: sg })),
    );
    const last = stdout.trim().split('\n').pop() ?? '';
    if (!last.startsWith('{')) throw childFailure('sync --config process', code, signal, stderr);
    const outcome = JSON.parse(last) as {
      spaces: { status: string; error: string | null; detailsFetched?: number; detailsPending?: number; throttled?: number }[];
    };
    const usage = JSON.parse(readFileSync(rusage, 'utf8')) as { maxRssMb: number; userCpuSec: number; systemCpuSec: number; wallSec: number };

    const logs = await sims.command<LogTuple[][]>({ cmd: 'logs' });
    const uses = logs.map((l) => windowUse(l, s.rateLimit, 0, s.windowMs));
    const shares = uses.map((u) => u.utilisation).sort((a, b) => a - b);
    const detailTimes = logs.flatMap((l) => l.filter((e) => e[3] === 'conversation_detail' && e[2] === 200).map((e) => e[0]));
    const span = detailTimes.length > 1 ? (Math.max(...detailTimes) - Math.min(...detailTimes)) / 1000 : 0;
    const statuses: Record<string, number> = {};
    for (const sp of outcome.spaces) statuses[sp.status] = (statuses[sp.status] ?? 0) + 1;
    const details = outcome.spaces.reduce((n, sp) => n + (sp.detailsFetched ?? 0), 0);
    return {
      settings: s,
      budgetPerSec: (s.count * s.rateLimit) / (s.windowMs / 1000),
      exitCode: code,
      statuses,
      errors: [...new Set(outcome.spaces.map((sp) => sp.error).filter((e): e is string => e !== null))],
      details,
      detailsPending: outcome.spaces.reduce((n, sp) => n + (sp.detailsPending ?? 0), 0),
      detailsPerSec: span > 0 ? detailTimes.length / span : 0,
      utilisation: { min: shares[0] ?? 0, median: shares[Math.floor(shares.length / 2)] ?? 0, max: shares[shares.length - 1] ?? 0 },
      worstWindow: Math.min(...uses.map((u) => u.worstWindow)),
      keys: uses.map((u, i) => ({ space: sims.spaces[i]!.space, windows: u.own })),
      throttled: outcome.spaces.reduce((n, sp) => n + (sp.throttled ?? 0), 0),
      maxRssMb: usage.maxRssMb,
      cpuSec: usage.userCpuSec + usage.systemCpuSec,
      seconds: usage.wallSec,
    };
  } finally {
    await sims.close();
    for (const p of [dbPath, `${dbPath}.wal`, rusage, config]) rmSync(p, { force: true });
  }
}
