// The API key never appears in output, logs, the database, reports or exports; files holding
// personal data are readable by their owner only.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('secrets');

const KEY = 'np_CANARY_secret_key_5f1c9e77';
const WRONG_KEY = 'np_CANARY_wrong_key_0d2b4a11';

let sim: Simulator;
let dir: string;
const outputs: CliResult[] = [];

function filesUnder(path: string): string[] {
  const stat = statSync(path);
  if (!stat.isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 41, conversations: 400, rateLimit: 100_000, apiKey: KEY });
  dir = fileDir();
  const db = join(dir, 'convoduck.duckdb');
  const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: KEY, CONVODUCK_DB: db };
  outputs.push(await runCli(['sync', '--json'], env));
  outputs.push(await runCli(['report', '--out', join(dir, 'reports')], env));
  outputs.push(await runCli(['export', '--out', join(dir, 'export')], env));
  outputs.push(await runCli(['export', '--out', join(dir, 'export-csv'), '--format', 'csv'], env));
  outputs.push(await runCli(['status', '--json'], env));
  outputs.push(await runCli(['query', 'SELECT * FROM sync_runs'], env));
  outputs.push(await runCli(['sync'], { ...env, CONVODUCK_API_KEY: WRONG_KEY }));
  outputs.push(await runCli(['sync', '--json'], env));
}, 300_000);

afterAll(async () => {
  await sim.close();
});

describe('secrets', () => {
  it('ran every command', () => {
    expect(outputs.map((o) => o.code)).toEqual([0, 0, 0, 0, 0, 0, 3, 0]);
    expect(outputs[6]!.stderr).toMatch(/401|unauthenticated/);
    expect(outputs[6]!.stderr).toMatch(/CONVODUCK_API_KEY/);
  });

  it('never prints the key, right or wrong', () => {
    for (const o of outputs) {
      for (const key of [KEY, WRONG_KEY]) {
        expect(o.stdout).not.toContain(key);
        expect(o.stderr).not.toContain(key);
        // not even its distinctive middle part
        expect(o.stdout + o.stderr).not.toContain('CANARY');
      }
    }
  });

  it('stores the key in no file: database, reports or exports', () => {
    const files = filesUnder(dir);
    expect(files.some((f) => f.endsWith('.duckdb'))).toBe(true);
    expect(files.some((f) => f.endsWith('.parquet'))).toBe(true);
    expect(files.some((f) => f.endsWith('.csv'))).toBe(true);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect(bytes.includes('CANARY'), file).toBe(false);
    }
  });

  it('creates the database for its owner only', () => {
    expect(statSync(join(dir, 'convoduck.duckdb')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'export')).mode & 0o777).toBe(0o700);
    for (const file of filesUnder(join(dir, 'export'))) expect(statSync(file).mode & 0o077, file).toBe(0);
  });
});
