// Every command with bad flags and settings: one line on stderr naming the problem and the fix,
// the documented exit code, no stack trace, and existing files byte for byte unchanged.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';

let dir: string;
let db: string;
let notDuck: string;
let readOnlyDir: string;
const loopback = 'http://127.0.0.1:9/api/v1'; // nothing listens: a case that reached the network would fail differently

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'convoduck-bad-'));
  db = join(dir, 'existing.duckdb');
  await Database.with(db, async (d) => {
    await d.run(`INSERT INTO convoduck_meta VALUES ('marker', 'keep me')`);
  });
  notDuck = join(dir, 'notes.duckdb');
  writeFileSync(notDuck, 'these are my notes, not a database\n');
  writeFileSync(join(dir, 'key'), 'np_test_key_in_file\n');
  // root ignores permission bits, so a root test uses a directory nobody can create files in.
  readOnlyDir = process.getuid?.() === 0 ? '/sys' : join(dir, 'ro');
  if (readOnlyDir !== '/sys') {
    mkdirSync(readOnlyDir);
    chmodSync(readOnlyDir, 0o500);
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function snapshot(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir)) {
    if (name === 'ro') continue;
    const path = join(dir, name);
    try {
      files.set(name, readFileSync(path));
    } catch {
      // a directory
    }
  }
  return files;
}

interface Case {
  name: string;
  args: () => string[];
  env?: () => NodeJS.ProcessEnv;
  code?: number;
  error: RegExp;
}

const api = () => ({ CONVODUCK_BASE_URL: loopback, CONVODUCK_API_KEY: 'np_test_key', CONVODUCK_DB: db });

const cases: Case[] = [
  { name: 'an unknown command', args: () => ['synk'], error: /unknown command 'synk'.*sync/ },
  { name: 'an unknown flag', args: () => ['sync', '--bogus'], env: api, error: /unknown option '--bogus'/ },
  { name: 'a bad --since date', args: () => ['sync', '--since', '2026-13-45'], env: api, error: /--since "2026-13-45" is not a time/ },
  { name: 'a bad duration', args: () => ['sync', '--overlap', '5 parsecs'], env: api, error: /--overlap .* is not a duration/ },
  { name: 'a zero --max-rpm', args: () => ['sync', '--max-rpm', '0'], env: api, error: /--max-rpm "0" must be a whole number above 0/ },
  { name: 'a negative --max-rpm', args: () => ['sync', '--max-rpm', '-5'], env: api, error: /--max-rpm|option/ },
  { name: 'bad --details', args: () => ['sync', '--details', 'failed;drop'], env: api, error: /--details/ },
  { name: 'the key as a flag', args: () => ['sync', '--api-key', 'np_flag_key'], env: api, error: /never taken as a flag/ },
  {
    name: 'an http:// URL off loopback',
    args: () => ['sync'],
    env: () => ({ ...api(), CONVODUCK_BASE_URL: 'http://api.example.com/api/v1' }),
    error: /https:\/\//,
  },
  {
    name: 'a base URL without /api/v1',
    args: () => ['sync'],
    env: () => ({ ...api(), CONVODUCK_BASE_URL: 'https://api.example.com/v2' }),
    error: /must end with \/api\/v1/,
  },
  { name: 'no base URL', args: () => ['sync'], env: () => ({ CONVODUCK_API_KEY: 'np_x', CONVODUCK_DB: db }), error: /CONVODUCK_BASE_URL/ },
  { name: 'a missing key', args: () => ['sync'], env: () => ({ CONVODUCK_BASE_URL: loopback, CONVODUCK_DB: db }), error: /no API key: set CONVODUCK_API_KEY/ },
  {
    name: 'a key file that does not exist',
    args: () => ['sync', '--api-key-file', join(dir, 'nope')],
    env: () => ({ CONVODUCK_BASE_URL: loopback, CONVODUCK_DB: db }),
    error: /cannot read the key file .*nope \(ENOENT\)/,
  },
  {
    name: 'a database in a directory that does not exist',
    args: () => ['sync', '--db', join(dir, 'missing', 'x.duckdb')],
    env: api,
    error: /directory .*missing does not exist/,
  },
  {
    name: 'a database in a read-only directory',
    args: () => ['sync', '--db', join(readOnlyDir, 'x.duckdb')],
    env: api,
    error: /cannot write in .* \(E[A-Z]+\): pass --db/,
  },
  { name: 'sync on a file that is not DuckDB', args: () => ['sync', '--db', notDuck], env: api, error: /is not a DuckDB database/ },
  { name: 'query on a file that is not DuckDB', args: () => ['query', '--db', notDuck, 'SELECT 1'], error: /is not a DuckDB database/ },
  { name: 'report on a file that is not DuckDB', args: () => ['report', '--db', notDuck, '--out', join(dir, 'r')], error: /is not a DuckDB database/ },
  { name: 'rebuild of a missing database', args: () => ['rebuild', '--db', join(dir, 'absent.duckdb')], error: /does not exist/ },
  { name: 'an unknown report', args: () => ['report', 'outcomez', '--db', db, '--out', join(dir, 'r')], error: /outcomez.*outcomes/ },
  { name: 'a bad report --from', args: () => ['report', '--db', db, '--from', 'last tuesday', '--out', join(dir, 'r')], error: /--from/ },
  { name: 'a bad report --channel', args: () => ['report', '--db', db, '--channel', 'fax', '--out', join(dir, 'r')], error: /--channel/ },
  { name: 'an unknown time zone', args: () => ['report', '--db', db, '--tz', 'Mars/Olympus', '--out', join(dir, 'r')], error: /Mars\/Olympus/ },
  { name: 'query without SQL', args: () => ['query', '--db', db], error: /no SQL given/ },
  { name: 'a bad query format', args: () => ['query', '--db', db, '--format', 'xml', 'SELECT 1'], error: /xml/ },
  { name: 'export without --out', args: () => ['export', '--db', db], error: /--out/ },
  { name: 'export of an unknown table', args: () => ['export', '--db', db, '--out', join(dir, 'e'), '--tables', 'secrets'], error: /secrets/ },
  { name: 'a bad export --since', args: () => ['export', '--db', db, '--out', join(dir, 'e'), '--since', 'soonish'], error: /--since/ },
  { name: 'status of a missing database', args: () => ['status', '--db', join(dir, 'absent.duckdb')], error: /does not exist/ },
  { name: 'a zero demo size', args: () => ['demo', '--conversations', '0'], error: /--conversations "0"/ },
  { name: 'a bad simulator port', args: () => ['simulate', '--port', '70000'], error: /--port/ },
];

describe('bad input', () => {
  it.each(cases)('$name: one line, exit 2, nothing touched', async (c) => {
    const before = snapshot();
    const result = await runCli(c.args(), c.env?.() ?? {});
    expect(result.code, result.stderr).toBe(c.code ?? 2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(c.error);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    expect(snapshot()).toEqual(before);
  });

  it('leaves a database that a failed command pointed at readable and unchanged', async () => {
    const copy = join(dir, 'copy-check.duckdb');
    copyFileSync(db, copy);
    const result = await runCli(['sync', '--db', copy, '--max-rpm', 'lots'], api());
    expect(result.code).toBe(2);
    const check = await Database.open(copy, { readOnly: true });
    const marker = await check.one<{ value: string }>(`SELECT value FROM convoduck_meta WHERE key = 'marker'`);
    check.close();
    expect(marker?.value).toBe('keep me');
    rmSync(copy);
  });
});
