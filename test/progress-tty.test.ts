// `convoduck sync`'s progress as an operator sees it: in a terminal of 80 columns (a pseudo-terminal
// made by util-linux `script`) every redraw fits in 79 columns and the last one is cleared; in a log
// (stderr not a terminal) a line comes at least every 5 s, also while the run only waits.
import { execFileSync, spawn } from 'node:child_process';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { columnsOf } from '../src/cli/sync/progress.js';
import type { Simulator } from '../src/simulator/index.js';
import { CLI, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('progress');

function env(sim: Simulator, windowMs: number): NodeJS.ProcessEnv {
  return {
    CONVODUCK_BASE_URL: sim.baseUrl,
    CONVODUCK_API_KEY: sim.apiKey,
    CONVODUCK_DB: tempDb(),
    CONVODUCK_RATE_WINDOW_MS: String(windowMs),
  };
}

/** Another client spends `n` of the key's requests. */
async function spend(sim: Simulator, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await request(`${sim.baseUrl}/spaces`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
    await res.body.dump();
  }
}

function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Runs `convoduck sync` in a pseudo-terminal of 80 × 24; resolves with everything the terminal received. */
function syncInTerminal(environment: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const command = `stty cols 80 rows 24; exec "${process.execPath}" "${CLI}" sync`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm', ...environment },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

const ERASE = '\r\x1b[2K';

describe('progress on a terminal', () => {
  it('at 80 columns: every redraw fits in 79 columns, none wraps, and the last one is cleared before the summary', async () => {
    // `script` is util-linux's; without it there is no pseudo-terminal to run in
    expect(hasScript(), 'util-linux `script` is needed for this test').toBe(true);
    const sim = await simulator({ seed: 81, conversations: 90, rateLimit: 30, windowMs: 2_000 });
    const run = await syncInTerminal(env(sim, 2_000));
    expect(run.code, run.output).toBe(0);

    // Each redraw is an erase of the row, then the line; the next erase (or the end) follows it.
    const pieces = run.output.split(ERASE);
    const drawn = pieces.slice(1, -1);
    expect(drawn.length, run.output).toBeGreaterThan(5);
    expect(drawn.some((line) => line.startsWith('details '))).toBe(true);
    for (const line of drawn) {
      // a newline after a drawn line would leave it on the screen as a stale row
      expect(line, JSON.stringify(line)).not.toMatch(/[\r\n]/);
      expect(columnsOf(line), line).toBeLessThanOrEqual(79);
    }
    // the line drawn at 'done' was erased, and the summary starts on the cleared row
    expect(pieces.at(-1)!.startsWith('sync done in '), JSON.stringify(pieces.at(-1))).toBe(true);
    expect(pieces.at(-1)).not.toContain('\x1b[');
  }, 300_000);
});

describe('progress in a log', () => {
  it('a run that waits for the key’s budget still prints a line at least every 5 s', async () => {
    const windowMs = 10_000;
    // a few conversations: the run still waits through several windows, for another client's and its own sends
    const sim = await simulator({ seed: 82, conversations: 2, rateLimit: 5, windowMs });
    await spend(sim, 5); // another job spent the key just before the run
    const started = Date.now();
    const cli = startCli(['sync'], env(sim, windowMs));
    const chunks: { at: number; text: string }[] = [];
    cli.child.stderr!.setEncoding('utf8').on('data', (d: string) => chunks.push({ at: Date.now(), text: d }));
    const result = await cli.done;
    const ended = Date.now();
    expect(result.code, result.stderr).toBe(0);

    // the run waited: it took more than a window, and said why
    expect(ended - started).toBeGreaterThan(windowMs);
    expect(result.stderr).toMatch(/waiting \d+s: /);
    // from the start to the end, no silence longer than 5 s (3 s of slack for a loaded machine; a run
    // silent while it waits would be silent for most of the 10 s window)
    const times = [started, ...chunks.map((c) => c.at), ended];
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.max(...gaps), `gaps (ms): ${gaps.join(', ')}`).toBeLessThanOrEqual(8_000);
    for (const line of result.stderr.split('\n').filter((l) => /^\d{4}-/.test(l))) {
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (dimensions|listing|details) /);
      expect(line).toMatch(/ \d+\/min \(budget \d+\/min\)/);
    }
  }, 300_000);
});
