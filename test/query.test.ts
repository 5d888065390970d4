// `convoduck query`: the compiled CLI against a real DuckDB file built from the simulator's
// dataset, in every output format, with SQL and usage errors, and while another process
// holds the file.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBTypeId, VARCHAR, type DuckDBValue } from '@duckdb/node-api';
import { Command } from 'commander';
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { registerQuery } from '../src/cli/commands/query.js';
import { toCliError, UsageError } from '../src/cli/errors.js';
import { QueryError } from '../src/shared/errors.js';
import { runQuery } from '../src/query/query.js';
import type { QueryFormat } from '../src/output/formats.js';
import { csvField } from '../src/output/csv.js';
import { fitCell } from '../src/output/table.js';
import { compactJson, toJsonCell, toText, stringifyJson } from '../src/output/values.js';
import { oneLineError } from '../src/shared/errors.js';
import { Database } from '../src/store/database.js';
import { formatInstant } from '../src/shared/time.js';
import { runCli, startCli } from './support/cli.js';
import { copyFixture } from './support/exports-fixture.js';
import { sync } from '../src/crawler/sync.js';
import { startSimulator } from '../src/simulator/index.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('query');

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let dir: string;
let dbPath: string;

beforeAll(() => {
  dir = fileDir();
  dbPath = join(dir, 'fixture.duckdb');
  copyFixture(inject('exportsFixture'), dbPath);
});

/** runQuery in this process, output collected (no CLI start-up: fast). */
async function queryHere(sql: string, format: QueryFormat): Promise<string> {
  let text = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  await runQuery(dbPath, sql, { format, out });
  return text;
}

/** The `query` command's action in this process: null, or the error as main.ts would map it. */
async function commandHere(args: string[]): Promise<unknown> {
  const program = new Command('convoduck').exitOverride();
  registerQuery(program);
  try {
    await program.parseAsync(['node', 'convoduck', ...args]);
    return null;
  } catch (err) {
    return toCliError(err) ?? err;
  }
}

/** RFC 4180 parser (quoted fields with "" escapes, embedded commas and newlines). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') {
      quoted = true;
      wasQuoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      wasQuoted = false;
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      wasQuoted = false;
    } else if (ch !== '\r') field += ch;
  }
  if (field !== '' || wasQuoted || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// Conversations with every kind of column the tables have, plus a BIGINT from count().
const SQL = `
  SELECT c.id, c.channel, c.started_at, c.ended_at, c.duration_sec, c.is_final, c.summary,
         count(t.seq) AS turns, max(t.text) AS some_text
  FROM conversations c LEFT JOIN transcript_turns t ON t.conversation_id = c.id
  GROUP BY ALL ORDER BY c.started_at, c.id LIMIT 60`;

interface Expected {
  columns: string[];
  rows: Record<string, unknown>[];
}

async function expected(): Promise<Expected> {
  return Database.with(dbPath, async (db) => {
    const reader = await db.connection.runAndReadAll(SQL);
    return { columns: reader.columnNames(), rows: reader.getRowObjectsJS() as Record<string, unknown>[] };
  }, { readOnly: true });
}

/** How the JSON formats must show a JS value from getRowObjectsJS. */
function asJson(v: unknown): unknown {
  if (v instanceof Date) return formatInstant(v);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/** How CSV must show it (null: an empty unquoted field). */
function asCsv(v: unknown): string {
  if (v === null) return '';
  if (v instanceof Date) return formatInstant(v);
  return String(v);
}

describe('query output formats', () => {
  it('json: an array of objects, BIGINT as numbers, timestamps ISO 8601', async () => {
    const want = await expected();
    const res = await runCli(['query', '--db', dbPath, '--format', 'json', SQL]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const got = JSON.parse(res.stdout) as Record<string, unknown>[];
    expect(got).toHaveLength(60);
    expect(Object.keys(got[0]!)).toEqual(want.columns);
    expect(got).toEqual(want.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, asJson(v)]))));
    expect(got.some((r) => r.ended_at === null)).toBe(false); // the oldest are finished
    expect(typeof got[0]!.turns).toBe('number');
    expect(got[0]!.started_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
  });

  it('ndjson: one object per line, the same rows', async () => {
    const want = await expected();
    const res = await runCli(['query', '--db', dbPath, '--format', 'ndjson', SQL]);
    expect(res.code).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(60);
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      want.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, asJson(v)]))),
    );
  });

  it('csv: RFC 4180 with a header, the default when stdout is not a terminal', async () => {
    const want = await expected();
    const res = await runCli(['query', '--db', dbPath, SQL]); // no --format: a pipe gets CSV
    expect(res.code).toBe(0);
    const rows = parseCsv(res.stdout);
    expect(rows[0]).toEqual(want.columns);
    expect(rows.slice(1)).toEqual(want.rows.map((r) => want.columns.map((c) => asCsv(r[c]))));
  });

  it('table: aligned columns, a rule under the header, long cells cut, NULL shown', async () => {
    const want = await expected();
    const res = await runCli(['query', '--db', dbPath, '--format', 'table', '--max-width', '20', SQL]);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('(60 rows)\n');
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(62);
    expect(lines[0]!.split('|').map((s) => s.trim())).toEqual(want.columns);
    expect(lines[1]).toMatch(/^-+(-\+-+)+$/);
    // Every row has its separators exactly where the header has them.
    const bars = (l: string) => [...l].flatMap((ch, i) => (ch === '|' ? [i] : []));
    for (const line of lines.slice(2)) expect(bars(line)).toEqual(bars(lines[0]!));
    const first = lines[2]!.split(' | ').map((s) => s.trim());
    expect(first[0]).toBe(fitCell(String(want.rows[0]!.id), 20));
    expect(first[2]).toBe(formatInstant(want.rows[0]!.started_at as Date));
    // Text is cut at --max-width; timestamps and numbers never are.
    for (const line of lines.slice(2)) {
      const cells = line.split(' | ');
      for (const i of [0, 1, 6, 8]) expect([...cells[i]!.trim()].length).toBeLessThanOrEqual(20);
      expect(cells[2]!.trim()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    }
    expect(res.stdout).toContain('…');

    const nulls = await runCli(['query', '--db', dbPath, '--format', 'table', "SELECT NULL::INT AS n, '' AS e"]);
    expect(nulls.stdout.split('\n')[2]).toMatch(/^NULL \|/);
  });

  it('keeps awkward values intact in every format', async () => {
    const sql = `SELECT 'a,b' AS comma, 'say "hi"' AS quote, E'two\\nlines' AS newline, '' AS empty,
                        NULL::VARCHAR AS nothing, 'Jürgen 🦆' AS unicode, 9223372036854775807 AS big,
                        12.50::DECIMAL(10,2) AS price, '{"a":[1,2]}'::JSON AS doc, [1, 2] AS list,
                        {'k': 'v'} AS struct, 'nan'::DOUBLE AS nan, DATE '2026-11-01' AS day,
                        TIMESTAMP '2026-11-01 08:00:00.123456' AS local_ts`;
    const json = await queryHere(sql, 'json');
    expect(JSON.parse(json)).toEqual([
      {
        comma: 'a,b',
        quote: 'say "hi"',
        newline: 'two\nlines',
        empty: '',
        nothing: null,
        unicode: 'Jürgen 🦆',
        big: '9223372036854775807',
        price: 12.5,
        doc: { a: [1, 2] },
        list: [1, 2],
        struct: { k: 'v' },
        nan: 'NaN',
        day: '2026-11-01',
        local_ts: '2026-11-01T08:00:00.123456Z',
      },
    ]);
    const csv = { stdout: await queryHere(sql, 'csv') };
    const [header, row] = parseCsv(csv.stdout);
    expect(header).toHaveLength(14);
    expect(row).toEqual([
      'a,b',
      'say "hi"',
      'two\nlines',
      '',
      '',
      'Jürgen 🦆',
      '9223372036854775807',
      '12.50',
      '{"a":[1,2]}',
      '[1,2]',
      '{"k":"v"}',
      'nan', // doubles as every CSV writes them (DuckDB's text, as report has always written)
      '2026-11-01',
      '2026-11-01T08:00:00.123456Z',
    ]);
    // NULL is an empty field, the empty string a quoted one.
    expect(csv.stdout.split('\n').slice(1).join('\n')).toContain(',"",,');
  });

  it('a large result of text in several scripts arrives whole, wherever the pipe cuts it', async () => {
    // 3- and 4-byte characters across a megabyte: the pipe's chunks end inside some of them
    const res = await runCli(['query', '--db', dbPath, '--format', 'csv', `SELECT i, repeat('も🦆ü', 50) AS text FROM range(1000) t(i)`]);
    expect(res.code, res.stderr).toBe(0);
    const rows = parseCsv(res.stdout).slice(1);
    expect(rows).toHaveLength(1000);
    expect(rows.filter(([, text]) => text !== 'も🦆ü'.repeat(50))).toEqual([]);
  });

  it('runs several statements and prints the last result; reads SQL from --file', async () => {
    const file = join(dir, 'q.sql');
    writeFileSync(file, `-- a comment\nCREATE TEMP TABLE x AS SELECT 41 AS n;\nSELECT n + 1 AS answer FROM x;\n`);
    const res = await runCli(['query', '--db', dbPath, '--file', file, '--format', 'csv']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe('answer\n42\n');
  });

  it('prints an empty result as a header, [] or nothing', async () => {
    const sql = 'SELECT id FROM conversations WHERE false';
    expect(await queryHere(sql, 'csv')).toBe('id\n');
    expect(await queryHere(sql, 'json')).toBe('[]\n');
    expect(await queryHere(sql, 'ndjson')).toBe('');
    expect(await queryHere(sql, 'table')).toBe('id\n--\n');
  });
});

describe('query errors', () => {
  it('a SQL error is one line on stderr and exit 1, without a stack trace', async () => {
    const res = await runCli(['query', '--db', dbPath, 'SELECT * FROM no_such_table']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^convoduck: Catalog Error: Table with name no_such_table does not exist!.*\n$/);
    expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(res.stderr).not.toMatch(/\bat .*\.js/);
    // Parser and runtime errors too: a QueryError (exit 1) with a one-line message.
    for (const sql of ['SELEC 1', "SELECT error('boom')", 'SELECT 1; SELECT * FROM nope']) {
      const err = await runQuery(dbPath, sql, { format: 'csv', out: new Writable({ write: (_c, _e, cb) => cb() }) }).catch(
        (e: unknown) => e,
      );
      expect(err, sql).toBeInstanceOf(QueryError);
      expect(toCliError(err)?.exitCode).toBe(1);
      expect((err as QueryError).message).not.toContain('\n');
    }
  });

  it('the database is opened read-only: writes fail with exit 1', async () => {
    const res = await runCli(['query', '--db', dbPath, "DELETE FROM conversations"]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/read-only/);
    const count = await Database.with(dbPath, (db) => db.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM conversations'), { readOnly: true });
    expect(count?.n).toBe(150);
  });

  it('usage errors exit 2 with a one-line hint', async () => {
    const res = await runCli(['query', '--db', dbPath]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('convoduck: no SQL given: convoduck query "SELECT …" or convoduck query --file query.sql\n');

    const blank = join(dir, 'blank.sql');
    writeFileSync(blank, '-- nothing here\n');
    const cases: [string[], RegExp][] = [
      [['query', '--db', dbPath, 'SELECT 1', '--file', blank], /either as an argument or with --file, not both/],
      [['query', '--db', dbPath, '--file', join(dir, 'missing.sql')], /cannot read --file .*missing\.sql: no such file/],
      [['query', '--db', dbPath, '--file', blank], /no SQL to run/],
      [['query', '--db', dbPath, '--format', 'xml', 'SELECT 1'], /--format "xml" is not one of: table, csv, json, ndjson/],
      [['query', '--db', join(dir, 'nope.duckdb'), 'SELECT 1'], /nope\.duckdb does not exist/],
      [['query', '--db', dbPath, '--wait', 'soon', 'SELECT 1'], /--wait "soon" is not a duration/],
      [['query', '--db', dbPath, '--max-width', '0', 'SELECT 1'], /--max-width "0" must be a whole number above 0/],
    ];
    for (const [args, message] of cases) {
      const err = await commandHere(args);
      expect(err, args.join(' ')).toBeInstanceOf(UsageError);
      expect((err as UsageError).message).toMatch(message);
      expect((err as UsageError).message).not.toContain('\n');
    }
  });
});

describe('query and report while another process holds the file', () => {
  /** A child process that opens the file read-write (as a sync's commit does) and holds it. */
  function holdDatabase(ms: number): Promise<{ released: Promise<void>; release: () => void }> {
    const script = `
      import { DuckDBInstance } from '@duckdb/node-api';
      const instance = await DuckDBInstance.create(process.argv[1]);
      const connection = await instance.connect();
      await connection.run('SELECT 1');
      process.stdout.write('held\\n');
      setTimeout(() => { connection.closeSync(); instance.closeSync(); process.exit(0); }, ${ms});`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dbPath], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const released = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    return new Promise((resolve, reject) => {
      child.stdout!.once('data', () => resolve({ released, release: () => child.kill() }));
      child.once('exit', (code) => reject(new Error(`holder exited early (${code})`)));
    });
  }

  /** Runs the CLI while the file is held, and lets go only once it says it waits (a slow start cannot miss the lock). */
  async function runWhileHeld(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const { released, release } = await holdDatabase(60_000);
    const run = startCli(args);
    let seen = '';
    await new Promise<void>((resolve) => {
      run.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
        seen += d;
        if (seen.includes('waiting up to')) resolve();
      });
      void run.done.then(() => resolve());
    });
    release();
    await released;
    return run.done;
  }

  it('waits for the lock and then succeeds', async () => {
    const res = await runWhileHeld(['query', '--db', dbPath, '--format', 'csv', 'SELECT count(*) AS n FROM conversations']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('n\n150\n');
    expect(res.stderr).toMatch(/another process holds the database.*waiting up to 30s/);
  });

  it('gives up after --wait with a clear one-line message (exit 1)', async () => {
    const { released, release } = await holdDatabase(10_000);
    const res = await runCli(['query', '--db', dbPath, '--wait', '1s', 'SELECT 1']);
    release();
    await released;
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines[lines.length - 1]).toMatch(/stayed locked by another process for 1 s.*--wait/);
  });

  it('report waits for the lock the same way and then writes its files', async () => {
    const out = join(dir, 'reports-after-wait');
    const res = await runWhileHeld(['report', 'outcomes', '--db', dbPath, '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/^convoduck: another process holds the database.*waiting up to 30s…\noutcomes: \d+ rows → /);
    expect(readFileSync(join(out, 'outcomes.csv'), 'utf8')).toMatch(/^day,/);
  });

  it('report gives up after --wait with the same one-line message as query (exit 1), writing nothing', async () => {
    const out = join(dir, 'reports-gave-up');
    const { released, release } = await holdDatabase(10_000);
    const [report, query] = await Promise.all([
      runCli(['report', '--db', dbPath, '--wait', '1s', '--out', out]),
      runCli(['query', '--db', dbPath, '--wait', '1s', 'SELECT 1']),
    ]);
    release();
    await released;
    expect(report.code, report.stderr).toBe(1);
    expect(report.stdout).toBe('');
    const lines = report.stderr.trimEnd().split('\n');
    expect(lines).toEqual([expect.stringMatching(/waiting up to 1s/), expect.stringMatching(/stayed locked by another process for 1 s.*--wait$/)]);
    expect(lines[1]).toBe(query.stderr.trimEnd().split('\n').pop());
    expect(existsSync(out)).toBe(false);
  });
});

describe('query during a real sync', () => {
  it('answers between the sync’s batch commits, and the sync is not disturbed', async () => {
    const sim = await startSimulator({ seed: 21, conversations: 100, rateLimit: 25, windowMs: 1000 });
    const live = join(dir, 'live.duckdb');
    try {
      let done = false;
      const running = sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath: live, windowMs: 1000, batchSize: 20 }).finally(() => {
        done = true;
      });
      const seen: number[] = [];
      while (!done) {
        const res = await runCli(['query', '--db', live, '--format', 'csv', 'SELECT count(*) AS n FROM transcript_turns']);
        if (res.code === 2 && /does not exist/.test(res.stderr)) continue; // before the first commit
        expect(res.stderr.replace(/^convoduck: another process holds the database.*\n/m, '')).toBe('');
        expect(res.code).toBe(0);
        seen.push(Number(res.stdout.split('\n')[1]));
      }
      const summary = await running;
      expect(summary.status).toBe('ok');
      expect(seen.length).toBeGreaterThan(1);
      expect([...seen].sort((a, b) => a - b)).toEqual(seen); // rows only ever grow
    } finally {
      await sim.close();
    }
  });
});

describe('streaming', () => {
  it('stops quietly when the reader goes away (| head)', async () => {
    const { child, done } = startCli([
      'query',
      '--db',
      dbPath,
      '--format',
      'csv',
      'SELECT range AS i, repeat(\'x\', 100) AS pad FROM range(5000000)',
    ]);
    child.stdout!.once('data', () => child.stdout!.destroy());
    const res = await done;
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
  });
});

describe('value formatting', () => {
  it('quotes CSV fields only when needed', () => {
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('""');
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('cr\rlf\n')).toBe('"cr\rlf\n"');
    expect(csvField(' padded')).toBe('" padded"');
  });

  it('fits table cells on one line', () => {
    expect(fitCell('abcdef', 4)).toBe('abc…');
    expect(fitCell('a\nb\tc', 10)).toBe('a↵b c');
    expect(fitCell('🦆🦆🦆', 2)).toBe('🦆…');
  });

  it('converts values without losing precision', () => {
    const bigint = { typeId: DuckDBTypeId.BIGINT } as never;
    expect(toJsonCell(5n as DuckDBValue, bigint)).toBe(5);
    expect(toJsonCell(2n ** 60n as DuckDBValue, bigint)).toBe('1152921504606846976');
    expect(toText(2n ** 60n as DuckDBValue, bigint)).toBe('1152921504606846976');
    expect(stringifyJson(toJsonCell('{"x":1}', VARCHAR))).toBe('"{\\"x\\":1}"'); // plain VARCHAR stays a string
  });

  it('puts a stored, pretty-printed JSON value on one line (NDJSON stays one record a line)', () => {
    expect(compactJson('{\n  "a": [1,\n 2],\n  "s": "x \\" \\n y z"\n}')).toBe('{"a":[1,2],"s":"x \\" \\n y z"}');
    expect(compactJson('{"kept": "as is"}')).toBe('{"kept": "as is"}');
  });

  it('shortens DuckDB error messages to one line', () => {
    expect(
      oneLineError('Catalog Error: Table with name x does not exist!\nDid you mean "y"?\n\nLINE 1: SELECT * FROM x\n                      ^'),
    ).toBe('Catalog Error: Table with name x does not exist! Did you mean "y"?');
  });
});

describe('query on a DuckDB file convoduck never wrote', () => {
  it('answers from it and leaves it byte for byte as it was', async () => {
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const { readFileSync } = await import('node:fs');
    const other = join(dir, 'someone-elses.duckdb');
    const instance = await DuckDBInstance.create(other);
    const connection = await instance.connect();
    await connection.run(`CREATE TABLE calls AS SELECT range AS n FROM range(5)`);
    connection.closeSync();
    instance.closeSync();
    const before = readFileSync(other);

    const res = await runCli(['query', '--db', other, '--format', 'csv', 'SELECT sum(n) AS total FROM calls']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim().split('\n')).toEqual(['total', '10']);
    expect(readFileSync(other).equals(before)).toBe(true);
  });
});
