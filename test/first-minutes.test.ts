// What a newcomer does first, as the README says it: the demo, then the README's first queries as
// written (the block after `<!-- recipe:first-queries -->`), then the reports `report --list`
// names, each of which the README's table of reports must describe.
import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { SCHEMA_VERSION } from '../src/store/schema.js';
import { CLI, runCli } from './support/cli.js';
import { recipe } from './support/doc-recipes.js';
import { scratch } from './support/scratch.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { fileDir, tempDb } = scratch('first-minutes');

let work: string;
let bin: string;
let digest: string;
let db: string;

beforeAll(async () => {
  work = fileDir('work');
  bin = fileDir('bin');
  chmodSync(CLI, 0o755);
  symlinkSync(CLI, join(bin, 'convoduck'));
  const demo = await runCli(['demo', '--conversations', '300'], {}, work);
  expect(demo.code, demo.stderr).toBe(0);
  digest = demo.stdout;
  db = join(work, 'demo', 'convoduck.duckdb');
}, 300_000);

/** Runs one line of the README as a shell runs it, `npx convoduck` being the clone's built CLI. */
function shell(line: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = line.replace(/^npx convoduck /, 'convoduck ');
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd: work, env: { PATH: `${bin}:${process.env.PATH}`, HOME: work, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the README’s first queries', () => {
  const lines = recipe('README.md', 'first-queries').trim().split('\n');

  it('are the ones the demo’s digest offers', () => {
    for (const line of lines) expect(digest, line).toContain(line);
  });

  it('run as written on the demo database, agent names and all', async () => {
    expect(lines.length).toBeGreaterThanOrEqual(1);
    for (const line of lines) expect(line).toMatch(/^npx convoduck query --db demo\/convoduck\.duckdb "/);
    // and the query of "Against the real API", on the database CONVODUCK_DB names
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const against = [...readme.matchAll(/^ {4}(convoduck query ".*")$/gm)].map((m) => m[1]!);
    expect(against).toHaveLength(1);
    expect(against[0]).toContain('conversations_named');
    for (const line of [...lines, ...against]) {
      const result = await shell(line, { CONVODUCK_DB: db });
      expect(result.code, `${line}\n${result.stderr}`).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.trim().split('\n').length, line).toBeGreaterThan(2);
    }
    // the names are the agents' own, and every conversation has one
    const named = await Database.with(db, (d) =>
      d.all<{ agent_name: string | null; n: bigint; named: bigint }>(
        `SELECT (SELECT count(*) FROM conversations_named) AS n, (SELECT count(*) FROM conversations_named c JOIN agents a ON a.id = c.agent_id AND a.name = c.agent_name) AS named`,
      ),
    );
    expect(Number(named[0]!.n)).toBe(300);
    expect(Number(named[0]!.named)).toBe(300);
  });
});

describe('conversations_named', () => {
  it('is created by the upgrade of a database of the schema before it', async () => {
    const path = tempDb();
    await Database.with(path, async (d) => {
      await d.run('DROP VIEW conversations_named');
      await d.run(`UPDATE convoduck_meta SET value = '14' WHERE key = 'schema_version'`);
    });
    expect(SCHEMA_VERSION).toBeGreaterThan(14);
    const views = await Database.with(path, (d) => d.all<{ view_name: string }>(`SELECT view_name FROM duckdb_views() WHERE NOT internal`));
    expect(views.map((v) => v.view_name).sort()).toEqual(['conversation_load_state', 'conversations_named']);
  });

  it('is no table export writes: asked for, one line saying how to get it', async () => {
    const result = await runCli(['export', '--db', db, '--out', join(work, 'export'), '--tables', 'conversations_named']);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd()).toBe(
      'convoduck: --tables: conversations_named is a view, not a table: export conversations and agents, and join them on agent_id = id where you read them',
    );
  });

  it('survives a rebuild and a forget that rewrites the file', async () => {
    const copy = join(fileDir('copy'), 'convoduck.duckdb');
    copyFileSync(db, copy);
    expect((await runCli(['rebuild', '--db', copy])).code).toBe(0);
    const [one] = await Database.with(copy, (d) => d.all<{ id: string }>('SELECT id FROM conversations ORDER BY id LIMIT 1'));
    const forgot = await runCli(['forget', '--db', copy, '--id', one!.id]);
    expect(forgot.code, forgot.stderr).toBe(0);
    const query = await runCli(['query', '--db', copy, '--format', 'json', 'SELECT count(*) AS n, count(agent_name) AS named FROM conversations_named']);
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.parse(query.stdout)).toEqual([{ n: 299, named: 299 }]);
  });
});

describe('the README’s table of reports', () => {
  it('has a row for every report `report --list` names, and none other', async () => {
    const list = await runCli(['report', '--list', '--db', db]);
    expect(list.code, list.stderr).toBe(0);
    const listed = list.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]!)
      .sort();
    expect(listed.length).toBeGreaterThan(20);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const section = readme.split('\n## Reports\n')[1]!.split('\n#')[0]!;
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]!).sort();
    expect(rows).toEqual(listed);
  });
});
