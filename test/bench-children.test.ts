// A benchmark child that fails says what broke first: the parent's error starts with the child's
// message and where it was, not with the last lines of a stack.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childFailure } from '../src/bench/children/child-error.js';
import { scratch } from './support/scratch.js';

const SYNC_CHILD = fileURLToPath(new URL('../dist/bench/children/sync-child.js', import.meta.url));
const { simulator, tempDb } = scratch('bench-children');

function runChild(args: object, apiKey: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [SYNC_CHILD, JSON.stringify(args)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, CONVODUCK_API_KEY: apiKey },
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr })));
}

describe('a failing benchmark child', () => {
  it('puts the message and the phase first, before the stack', async () => {
    // The key is revoked once details flow: the run fails in the details phase with the API's refusal.
    const sim = await simulator({ seed: 5, conversations: 300, rateLimit: 100_000, revokeKeyAfter: 100 });
    const { code, signal, stderr } = await runChild({ baseUrl: sim.baseUrl, dbPath: tempDb() }, sim.apiKey);
    expect(sim.requestLog.filter((r) => r.kind === 'conversation_detail').length).toBeGreaterThan(0);
    expect(code).toBe(1);
    const err = childFailure('sync process', code, signal, stderr);
    const [first, ...rest] = err.message.split('\n');
    expect(first).toMatch(/^sync process exited 1: sync-child \(details phase, \d+\/300 details done, \d+ requests, after \d+ s\): AuthError: /);
    expect(rest.length).toBeGreaterThan(0);
    for (const line of rest) expect(line).toMatch(/^\s+at /);
  }, 300_000);

  it('without a report of its own (killed), shows what it printed last', () => {
    const err = childFailure('sync process', null, 'SIGKILL', 'line one\n\nFATAL ERROR: Reached heap limit\n');
    expect(err.message).toBe('sync process was killed by SIGKILL: line one | FATAL ERROR: Reached heap limit');
  });
});

// The `spaces` section's two children: simulated spaces in one process (spaces-child), and the CLI
// in another reporting its exit code and cost (cli-child). What the bench reads of them is tested here.
const SPACES_CHILD = fileURLToPath(new URL('../dist/bench/children/spaces-child.js', import.meta.url));
const CLI_CHILD = fileURLToPath(new URL('../dist/bench/children/cli-child.js', import.meta.url));

interface Hello {
  spaces: { baseUrl: string; apiKey: string; space: string; conversations: number }[];
}
type Log = [number, 0 | 1, number, string][];

describe('the spaces section’s children', () => {
  it('spaces-child serves each space on its own key and logs each key’s requests; cli-child records the CLI’s exit code and cost', async () => {
    const sims = spawn(process.execPath, [SPACES_CHILD, JSON.stringify({ count: 2, conversations: 4, rateLimit: 1000, windowMs: 60_000 })], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: sims.stdout })[Symbol.asyncIterator]();
    const next = async (): Promise<string> => String((await lines.next()).value);
    try {
      const hello = JSON.parse(await next()) as Hello;
      expect(hello.spaces.map((s) => s.space)).toEqual(['space-001', 'space-002']);
      expect(new Set(hello.spaces.map((s) => s.apiKey)).size).toBe(2);

      const dir = dirname(tempDb());
      const config = join(dir, 'job.toml');
      const rusage = join(dir, 'rusage.json');
      writeFileSync(
        config,
        hello.spaces.map((s, i) => `[[space]]\nbase_url = "${s.baseUrl}"\napi_key_env = "KEY_${i + 1}"\nslug = "${s.space}"\n`).join('\n'),
      );
      // the second space gets the first one's key: refused, so the CLI exits 3
      const cli = spawn(process.execPath, [CLI_CHILD, 'sync', '--config', config, '--db', join(dir, 'x.duckdb'), '--json'], {
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { PATH: process.env.PATH, BENCH_RUSAGE_FILE: rusage, KEY_1: hello.spaces[0]!.apiKey, KEY_2: hello.spaces[0]!.apiKey },
      });
      let stdout = '';
      cli.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      const code = await new Promise<number | null>((resolve) => cli.on('close', (c) => resolve(c)));
      expect(code).toBe(3);
      const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as { spaces: { space: string; status: string; detailsFetched?: number }[] };
      expect(outcome.spaces.map((s) => [s.status, s.detailsFetched ?? 0])).toEqual([['ok', hello.spaces[0]!.conversations], ['refused', 0]]);
      const usage = JSON.parse(readFileSync(rusage, 'utf8')) as { code: number; maxRssMb: number; userCpuSec: number; wallSec: number };
      expect(usage.code).toBe(3);
      expect(usage.maxRssMb).toBeGreaterThan(20);
      expect(usage.userCpuSec).toBeGreaterThan(0);
      expect(usage.wallSec).toBeGreaterThan(0);

      sims.stdin.write('{"cmd":"logs"}\n');
      const [first, second] = JSON.parse(await next()) as Log[];
      const ok = (log: Log, kind: string): number => log.filter((e) => e[1] === 0 && e[2] === 200 && e[3] === kind).length;
      expect(ok(first!, 'conversation_detail')).toBe(hello.spaces[0]!.conversations);
      expect(second!.length).toBeGreaterThan(0);
      expect(second!.every((e) => e[2] === 401 || e[2] === 403)).toBe(true);
    } finally {
      sims.stdin.end();
      await new Promise((resolve) => sims.on('close', resolve));
    }
  }, 300_000);
});
