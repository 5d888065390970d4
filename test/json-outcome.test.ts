// Every command that has --json prints exactly one JSON object on stdout whatever the outcome, so a
// scheduler always has something to parse; without --json stdout stays empty on failure.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('json-outcome');

let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ seed: 83, conversations: 5, rateLimit: 100_000 });
  dir = fileDir();
});

afterAll(async () => {
  await sim.close();
});

/** stdout must be exactly one JSON object on one line, and stderr the same error in the house form. */
function expectOneOutcome(result: { stdout: string; stderr: string }, status: string, exitCode: number): void {
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines, result.stdout).toHaveLength(1);
  const outcome = JSON.parse(lines[0]!) as { status: string; exitCode: number; error: string };
  expect(outcome).toMatchObject({ status, exitCode });
  expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(`convoduck: ${outcome.error}`);
}

describe('--json when the command fails', () => {
  const missingDb = () => join(dir, 'missing.duckdb');
  const cases: { name: string; args: () => string[]; env?: () => NodeJS.ProcessEnv; status: string; exitCode: number }[] = [
    { name: 'sync with an unknown option', args: () => ['sync', '--json', '--bogus'], status: 'usage', exitCode: 2 },
    { name: 'sync with an option missing its value', args: () => ['sync', '--json', '--since'], status: 'usage', exitCode: 2 },
    { name: 'export with a bad format', args: () => ['export', '--json', '--format', 'xlsx', '--out', join(dir, 'out')], status: 'usage', exitCode: 2 },
    { name: 'status of a missing database', args: () => ['status', '--json', '--db', missingDb()], status: 'usage', exitCode: 2 },
    { name: 'check without an API address', args: () => ['check', '--json'], env: () => ({ CONVODUCK_API_KEY: sim.apiKey }), status: 'usage', exitCode: 2 },
  ];
  for (const c of cases) {
    it(`${c.name}: one JSON object with status ${c.status}, exit ${c.exitCode}`, async () => {
      const result = await runCli(c.args(), c.env?.() ?? {});
      expect(result.code, result.stderr).toBe(c.exitCode);
      expectOneOutcome(result, c.status, c.exitCode);
    }, 300_000);
  }

  it('check with a refused key prints its own report once, exit 3, no key anywhere', async () => {
    const wrongKey = 'np_wrong_key_for_json_outcome_0123';
    const result = await runCli(['check', '--json'], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: wrongKey });
    expect(result.code, result.stderr).toBe(3);
    const report = JSON.parse(result.stdout) as { outcome: string };
    expect(report.outcome).toBe('refused');
    expect(result.stdout + result.stderr).not.toContain(wrongKey);
  }, 300_000);

  it('without --json, a failure prints nothing on stdout', async () => {
    const result = await runCli(['status', '--db', missingDb()]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  }, 300_000);

  it('--json after `--` is a value, not a request for JSON', async () => {
    const result = await runCli(['query', '--db', missingDb(), '--', '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  }, 300_000);
});

describe('convoduck with no command', () => {
  it('prints the help on stderr and exits 2', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/Usage: convoduck/);
    expect(result.stderr).toMatch(/sync \[options\]/);
  }, 300_000);
});
