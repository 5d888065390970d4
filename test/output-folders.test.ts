// Every folder a command creates (report --out, export --out, demo --dir), on every refusal the file
// system gives that this machine can stage: one line, exit 2, and an answer, never a hang. The CLI
// is killed after KILL_AFTER_MS, so a hang fails its test instead of holding the run.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { startCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('out-folders');

/** far above a slow start on a loaded machine; a hang (the procfs mkdir loop) never answers */
const KILL_AFTER_MS = 15_000;
const asRoot = process.getuid?.() === 0;

let dir: string;
let db: string;
let file: string;
let readOnly: string;

beforeAll(async () => {
  dir = fileDir();
  db = join(dir, 'stored.duckdb');
  await Database.with(db, async () => {});
  file = join(dir, 'a-file');
  writeFileSync(file, 'not a folder\n');
  // root ignores permission bits: a folder that is there but takes no file is a sysfs one
  readOnly = asRoot ? '/sys/kernel' : join(dir, 'read-only');
  if (!asRoot) {
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o500);
  }
});

async function runWithin(args: string[]): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const { child, done } = startCli(args, { CONVODUCK_DB: db }, dir);
  const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
  const result = await done;
  clearTimeout(timer);
  return { ...result, ms: Date.now() - started };
}

const cases: { name: string; out: () => string; code: RegExp }[] = [
  { name: 'a folder procfs will not create (mkdir answers ENOENT for ever)', out: () => '/proc/convoduck-nope', code: /ENOENT/ },
  { name: 'a folder below one procfs will not create', out: () => '/proc/convoduck-nope/reports', code: /ENOENT/ },
  { name: 'a folder the file system does not allow (sysfs)', out: () => '/sys/convoduck-nope', code: /EPERM|EACCES|EROFS/ },
  { name: 'a path through a file', out: () => join(file, 'reports'), code: /ENOTDIR/ },
  { name: 'a file where the folder should be', out: () => file, code: /EEXIST|ENOTDIR/ },
  { name: 'a name longer than the kernel takes', out: () => join(dir, 'r'.repeat(300)), code: /ENAMETOOLONG/ },
];

describe('a folder the file system refuses', () => {
  for (const command of ['report', 'export'] as const) {
    it.each(cases)(`${command} --out: $name — one line, exit 2, at once`, async (c) => {
      const result = await runWithin([command, '--out', c.out()]);
      expect(result.signal, 'killed: it hung').toBeNull();
      expect(result.code, result.stderr).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines, result.stderr).toHaveLength(1);
      // export answers a file in the way with its own refusal, before it creates anything
      if (command === 'export' && c.out() === file) expect(lines[0]).toMatch(/^convoduck: --out .* is a file: pass a directory/);
      else expect(lines[0]).toMatch(/^convoduck: cannot write into the output folder .*: .* \(E[A-Z]+\) — pass --out with a folder you can write$/);
      if (!(command === 'export' && c.out() === file)) expect(lines[0]).toMatch(c.code);
      expect(result.stdout).toBe('');
    });
  }

  it('report --out: a folder that is there but takes no file (read-only) — one line, exit 2', async () => {
    const result = await runWithin(['report', '--out', readOnly]);
    expect(result.signal, 'killed: it hung').toBeNull();
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(/^convoduck: cannot write into the output folder .*\((EACCES|EROFS|EPERM)\) — pass --out/);
  });

  it('export --out: an empty folder that takes no file — one line, exit 2', async () => {
    // root writes into any folder it made; the refusal then comes from sysfs, which is not empty
    const target = asRoot ? '/sys/kernel' : readOnly;
    const result = await runWithin(['export', '--out', target]);
    expect(result.signal, 'killed: it hung').toBeNull();
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr).toMatch(asRoot ? /is not empty and holds no earlier convoduck export/ : /cannot write into the output folder .*\(EACCES\)/);
  });

  it('demo --dir: a folder procfs will not create — one line, exit 2, nothing started', async () => {
    const result = await runWithin(['demo', '--dir', '/proc/convoduck-nope', '--out', join(dir, 'demo-reports')]);
    expect(result.signal, 'killed: it hung').toBeNull();
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n'), result.stderr).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(/^convoduck: cannot write into the output folder \/proc\/convoduck-nope: .*\(ENOENT\) — pass --dir with a folder you can write$/);
  });
});
