// docs/architecture.md read as a newcomer would: every file it names exists, and its worked
// example of a new report runs as written.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { writeHandDataset } from './support/hand-dataset.js';
import { scratch } from './support/scratch.js';

const DOC = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8');
const ROOT = new URL('..', import.meta.url).pathname;
const { tempDir } = scratch('architecture');

describe('docs/architecture.md', () => {
  it('names only files that exist (paths inside src/ or from the repository root)', () => {
    const named = [...DOC.matchAll(/`([\w./-]+\.(?:ts|sql|json|md))`/g)].map((m) => m[1]!).filter((p) => p.includes('/') && !p.startsWith('../') && !/NAME|NN_/.test(p));
    expect(named.length).toBeGreaterThan(30);
    // a path is from the repository root, from src/, or (in a room's row) from its room
    const bases = [ROOT, join(ROOT, 'src'), join(ROOT, 'docs'), ...readdirSync(join(ROOT, 'src')).map((room) => join(ROOT, 'src', room))];
    const missing = named.filter((p) => !bases.some((b) => existsSync(join(b, p))));
    expect(missing).toEqual([]);
  });

  it('lists every folder of src/ as a room, with the files to start reading at', () => {
    const rows = [...DOC.matchAll(/^\| `(\w+)\/` \|.*\| (.*) \|$/gm)].map((m) => ({ room: m[1]!, files: [...m[2]!.matchAll(/`([\w./-]+\.ts)`/g)].map((f) => f[1]!) }));
    expect(rows.map((r) => r.room).sort()).toEqual(readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort());
    const missing = rows.flatMap((r) => r.files.filter((f) => !existsSync(join(ROOT, 'src', r.room, f))).map((f) => `${r.room}/${f}`));
    expect(missing).toEqual([]);
  });

  it('adds a report with one .sql file, as its walkthrough says', async () => {
    const sql = /<!-- walkthrough:report -->\n```sql\n([\s\S]*?)```/.exec(DOC)?.[1];
    expect(sql).toBeDefined();
    const dir = tempDir();
    const reports = join(dir, 'my-reports');
    const dbPath = join(dir, 'hand.duckdb');
    await writeHandDataset(dbPath);
    mkdirSync(reports);
    writeFileSync(join(reports, 'channel_counts.sql'), sql!);

    const list = await runCli(['report', '--list', '--sql-dir', reports]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^channel_counts\s+Conversations per channel/m);

    const out = join(dir, 'out');
    const run = await runCli(['report', 'channel_counts', '--sql-dir', reports, '--db', dbPath, '--out', out, '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    const rows = (JSON.parse(readFileSync(join(out, 'channel_counts.json'), 'utf8')) as { space: string; channel: string; conversations: number }[]).map((r) => ({ ...r, conversations: Number(r.conversations) }));
    const expected = await Database.with(dbPath, (db) =>
      db.all<{ space: string; channel: string; conversations: number }>(`SELECT space, channel, count(*)::INTEGER AS conversations FROM conversations GROUP BY ALL ORDER BY space, channel`),
    );
    expect(rows).toEqual(expected);
  });
});

describe('README.md', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  it('is for users: at most 20 KB, and no revision stamps (figures live in docs/performance.md)', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(20 * 1024);
    expect(readme.match(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b/g) ?? []).toEqual([]);
  });
});
