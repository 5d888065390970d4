// Every command with bad flags and settings: one line on stderr naming the problem and the fix,
// the documented exit code, no stack trace, and existing files byte for byte unchanged.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { describeCommandLineError } from '../src/cli/command-line-errors.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('bad');

let dir: string;
let db: string;
let notDuck: string;
let readOnlyDir: string;
const loopback = 'http://127.0.0.1:9/api/v1'; // nothing listens: a case that reached the network would fail differently

beforeAll(async () => {
  dir = fileDir();
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

/** Each file of the folder by its SHA-256 (a deep comparison of the bytes themselves is slow). */
function snapshot(): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    if (name === 'ro') continue;
    const path = join(dir, name);
    try {
      files.set(name, createHash('sha256').update(readFileSync(path)).digest('hex'));
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
  { name: 'a misspelt command', args: () => ['synk'], error: /^convoduck: unknown command 'synk' — did you mean sync\? \(see convoduck --help\)$/ },
  { name: 'an unknown command', args: () => ['nosuch'], error: /^convoduck: unknown command 'nosuch' — the commands are check, sync, report, .*\(see convoduck --help\)$/ },
  { name: 'an unknown flag', args: () => ['sync', '--bogus'], env: api, error: /^convoduck: unknown option '--bogus' for sync — see convoduck sync --help$/ },
  { name: 'a misspelt flag', args: () => ['sync', '--jsno'], env: api, error: /^convoduck: unknown option '--jsno' for sync — did you mean --json\? \(see convoduck sync --help\)$/ },
  { name: 'an unknown short flag', args: () => ['status', '-x'], error: /^convoduck: unknown option '-x' for status — see convoduck status --help$/ },
  { name: 'an unknown flag before any command', args: () => ['--bogus'], error: /^convoduck: unknown option '--bogus' — see convoduck --help$/ },
  { name: 'a flag without its value', args: () => ['sync', '--db'], env: api, error: /^convoduck: option '--db <file>' needs a value — see convoduck sync --help$/ },
  { name: 'too many arguments', args: () => ['sync', 'now'], env: api, error: /^convoduck: too many arguments for 'sync': expected 0 arguments but got 1 — see convoduck sync --help$/ },
  { name: 'two SQL statements as arguments', args: () => ['query', '--db', db, 'SELECT 1', 'SELECT 2'], error: /^convoduck: too many arguments for 'query'.* — see convoduck query --help$/ },
  {
    name: 'an invalid choice',
    args: () => ['report', '--db', db, '--format', 'xlsx', '--out', join(dir, 'r')],
    error: /^convoduck: option '--format <format>' argument 'xlsx' is invalid: allowed choices are csv, json, parquet — see convoduck report --help$/,
  },
  { name: 'a bad --since date', args: () => ['sync', '--since', '2026-13-45'], env: api, error: /--since "2026-13-45" is not a time/ },
  { name: 'a bad duration', args: () => ['sync', '--overlap', '5 parsecs'], env: api, error: /--overlap .* is not a duration/ },
  { name: 'a zero --max-rpm', args: () => ['sync', '--max-rpm', '0'], env: api, error: /--max-rpm "0" must be a whole number above 0/ },
  { name: 'a negative --max-rpm', args: () => ['sync', '--max-rpm', '-5'], env: api, error: /--max-rpm|option/ },
  { name: 'bad --details', args: () => ['sync', '--details', 'failed;drop'], env: api, error: /--details/ },
  {
    name: 'an outcome --details does not know',
    args: () => ['sync', '--details', 'bogus'],
    env: api,
    error: /^convoduck: --details "bogus" must be all, none, or outcomes to fetch first from completed, transferred, hung_up, failed \(e\.g\. failed,transferred\)$/,
  },
  { name: 'one unknown outcome among known ones', args: () => ['sync', '--details', 'failed,transfered'], env: api, error: /--details "failed,transfered" must be/ },
  {
    name: 'a report --agent the database does not know',
    args: () => ['report', '--db', db, '--agent', 'no-such-agent', '--out', join(dir, 'r')],
    error: /^convoduck: --agent "no-such-agent" is not an agent in the database: list the agents with convoduck query "SELECT id, name FROM agents ORDER BY name"$/,
  },
  {
    name: 'a report --html --agent the database does not know',
    args: () => ['report', '--html', '--db', db, '--agent', 'no-such-agent', '--out', join(dir, 'r')],
    error: /--agent "no-such-agent" is not an agent in the database/,
  },
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
  {
    name: 'a report name one letter short',
    args: () => ['report', 'outcome', '--db', db, '--out', join(dir, 'r')],
    error: /^convoduck: unknown report "outcome" — did you mean outcomes\? \(report --list shows them all\)$/,
  },
  { name: 'a report name like none', args: () => ['report', 'nonsense', '--db', db, '--out', join(dir, 'r')], error: /unknown report "nonsense": available reports are abandonment, agent_changes, / },
  { name: 'a bad report --from', args: () => ['report', '--db', db, '--since', 'last tuesday', '--out', join(dir, 'r')], error: /--since/ },
  { name: 'a bad report --channel', args: () => ['report', '--db', db, '--channel', 'fax', '--out', join(dir, 'r')], error: /--channel/ },
  { name: 'an unknown time zone', args: () => ['report', '--db', db, '--tz', 'Mars/Olympus', '--out', join(dir, 'r')], error: /Mars\/Olympus/ },
  { name: 'a report --out that cannot be a folder', args: () => ['report', '--db', db, '--out', join(notDuck, 'r')], error: /cannot write into the output folder .*\(ENOTDIR\) — pass --out/ },
  { name: 'an export --out that cannot be a folder', args: () => ['export', '--db', db, '--out', join(notDuck, 'e')], error: /cannot write into the output folder .*\(ENOTDIR\) — pass --out/ },
  { name: 'query without SQL', args: () => ['query', '--db', db], error: /no SQL given/ },
  { name: 'search without words', args: () => ['search', '--db', db], error: /search query is empty/ },
  { name: 'a search of stopwords only', args: () => ['search', 'the', 'of', '--db', db], error: /holds no word the index keeps/ },
  { name: 'a bad search --limit', args: () => ['search', 'refund', '--db', db, '--limit', 'all'], error: /--limit "all"/ },
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
    expect(lines[0]).toMatch(/^convoduck: \S/);
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

describe('help and version', () => {
  it.each([[['--help']], [['sync', '--help']], [['--version']], [['help', 'sync']]])('%j prints on stdout and exits 0', async (args) => {
    const result = await runCli(args);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toBe('');
    expect(result.stderr).toBe('');
  });
});

// No convoduck command has a required argument or option today; these are the forms they would take.
describe('commander errors no command of convoduck can raise yet', () => {
  function errorOf(configure: (c: Command) => void, args: string[]): string {
    const root = new Command('convoduck').configureOutput({ outputError: () => undefined });
    const sub = root.command('load');
    configure(sub);
    sub.action(() => undefined);
    for (const c of [root, sub]) {
      c.exitOverride((err) => {
        throw Object.assign(new Error('parse error'), { line: describeCommandLineError(err, c) });
      });
    }
    try {
      root.parse(['node', 'convoduck', 'load', ...args]);
    } catch (err) {
      return (err as { line: string }).line;
    }
    throw new Error('no parse error');
  }

  it('names a missing required argument', () => {
    expect(errorOf((c) => c.argument('<file>'), [])).toBe("missing required argument 'file' — see convoduck load --help");
  });

  it('names a missing required option', () => {
    expect(errorOf((c) => c.requiredOption('--out <dir>'), [])).toBe("required option '--out <dir>' not specified — see convoduck load --help");
  });
});
