// Shards on one machine: the Indexed Job of docs/kubernetes.md played here. N `convoduck sync
// --db-dir --shard-count N` processes at once, each given its JOB_COMPLETION_INDEX, each owning
// the same number of spaces (slugs picked so that the rendezvous hash gives each shard its share),
// against simulators in another process. Does every key keep its budget when N processes share
// the machine's cores?

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { shardOf } from '../shared/shards.js';
import { type LogTuple, windowUse } from './measure.js';
import { childFailure } from './children/child-error.js';
import { startLineChild } from './children/procs.js';
import type { SpacesChildHello, SpacesChildOptions } from './children/spaces-child.js';

export interface ShardsSettings {
  shards: number;
  spacesPerShard: number;
  conversations: number;
  rateLimit: number;
  windowMs: number;
}

export interface ShardsResult {
  settings: ShardsSettings;
  /** per shard: its exit code, its process's peak RSS, CPU and wall time */
  processes: { index: number; exitCode: number | null; maxRssMb: number; cpuSec: number; seconds: number }[];
  details: number;
  /** each key's accepted requests in its whole windows ÷ its limit */
  utilisation: { min: number; median: number; max: number };
  /** the lowest single whole window of any key ÷ its limit */
  worstWindow: number;
  keys: { space: string; shard: number; windows: number[] }[];
  /** requests refused with 429, all keys */
  throttled: number;
  /** the highest peak RSS of any shard's process */
  maxRssMb: number;
  /** CPU of all shard processes together */
  cpuSec: number;
  /** from the first shard's start to the last one's end */
  seconds: number;
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** `perShard` slugs for each of `shards` shards, in shard order, as the hash assigns them. */
export function slugsPerShard(shards: number, perShard: number): string[][] {
  const out: string[][] = Array.from({ length: shards }, () => []);
  for (let i = 1; out.some((s) => s.length < perShard); i++) {
    const slug = `tenant-${String(i).padStart(4, '0')}`;
    const s = out[shardOf(slug, shards)]!;
    if (s.length < perShard) s.push(slug);
  }
  return out;
}

interface Usage {
  maxRssMb: number;
  userCpuSec: number;
  systemCpuSec: number;
  wallSec: number;
}

function runShard(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [here('./children/cli-child.js'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

export async function benchShards(s: ShardsSettings, workDir: string, log: (line: string) => void): Promise<ShardsResult> {
  const owned = slugsPerShard(s.shards, s.spacesPerShard);
  const slugs = owned.flat();
  log(`shards: starting ${slugs.length} simulated spaces of ${s.conversations} conversations (${s.rateLimit} per ${s.windowMs / 1000} s each)`);
  const options: SpacesChildOptions = { count: slugs.length, conversations: s.conversations, rateLimit: s.rateLimit, windowMs: s.windowMs, slugs, seedBase: 7000 };
  const sims = await startLineChild<SpacesChildHello>('./spaces-child.js', options, 'spaces process');
  const dbDir = join(workDir, 'shards');
  const config = join(workDir, 'shards.toml');
  rmSync(dbDir, { recursive: true, force: true });
  writeFileSync(
    config,
    sims.spaces.map((sp, i) => `[[space]]\nbase_url = "${sp.baseUrl}"\napi_key_env = "BENCH_KEY_${i + 1}"\nslug = "${sp.space}"\n`).join('\n'),
  );
  try {
    const base: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      ...Object.fromEntries(sims.spaces.map((sp, i) => [`BENCH_KEY_${i + 1}`, sp.apiKey])),
      ...(s.windowMs !== 60_000 ? { CONVODUCK_RATE_WINDOW_MS: String(s.windowMs) } : {}),
    };
    log(`shards: ${s.shards} × convoduck sync --db-dir --shard-count ${s.shards} at once (${s.spacesPerShard} spaces each)`);
    const t0 = performance.now();
    const runs = await Promise.all(
      owned.map(async (_, index) => {
        const rusage = join(workDir, `shard-${index}-rusage.json`);
        rmSync(rusage, { force: true });
        const env = { ...base, JOB_COMPLETION_INDEX: String(index), BENCH_RUSAGE_FILE: rusage };
        const run = await runShard(['sync', '--config', config, '--db-dir', dbDir, '--shard-count', String(s.shards)], env);
        let usage: Usage;
        try {
          usage = JSON.parse(readFileSync(rusage, 'utf8')) as Usage;
        } catch {
          throw childFailure(`shard ${index}`, run.code, run.signal, run.stderr);
        }
        rmSync(rusage, { force: true });
        return { index, exitCode: run.code, maxRssMb: usage.maxRssMb, cpuSec: usage.userCpuSec + usage.systemCpuSec, seconds: usage.wallSec };
      }),
    );
    const seconds = (performance.now() - t0) / 1000;

    const logs = await sims.command<LogTuple[][]>({ cmd: 'logs' });
    const uses = logs.map((l) => windowUse(l, s.rateLimit, 0, s.windowMs));
    const shares = uses.map((u) => u.utilisation).sort((a, b) => a - b);
    return {
      settings: s,
      processes: runs,
      details: logs.reduce((n, l) => n + l.filter((e) => e[3] === 'conversation_detail' && e[2] === 200).length, 0),
      utilisation: { min: shares[0] ?? 0, median: shares[Math.floor(shares.length / 2)] ?? 0, max: shares[shares.length - 1] ?? 0 },
      worstWindow: Math.min(...uses.map((u) => u.worstWindow)),
      keys: uses.map((u, i) => ({ space: sims.spaces[i]!.space, shard: Math.floor(i / s.spacesPerShard), windows: u.own })),
      throttled: logs.reduce((n, l) => n + l.filter((e) => e[2] === 429).length, 0),
      maxRssMb: Math.max(...runs.map((r) => r.maxRssMb)),
      cpuSec: runs.reduce((n, r) => n + r.cpuSec, 0),
      seconds,
    };
  } finally {
    await sims.close();
    rmSync(dbDir, { recursive: true, force: true });
    rmSync(config, { force: true });
  }
}
