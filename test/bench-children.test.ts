// A benchmark child that fails says what broke first: the parent's error starts with the child's
// message and where it was, not with the last lines of a stack.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childFailure } from '../src/bench/child-error.js';
import { scratch } from './support/scratch.js';

const SYNC_CHILD = fileURLToPath(new URL('../dist/bench/sync-child.js', import.meta.url));
const { simulator, tempDb } = scratch('bench-children');

function runChild(args: object, apiKey: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [SYNC_CHILD, JSON.stringify(args)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH, CONVODUCK_API_KEY: apiKey },
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
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
  }, 60_000);

  it('without a report of its own (killed), shows what it printed last', () => {
    const err = childFailure('sync process', null, 'SIGKILL', 'line one\n\nFATAL ERROR: Reached heap limit\n');
    expect(err.message).toBe('sync process was killed by SIGKILL: line one | FATAL ERROR: Reached heap limit');
  });
});
