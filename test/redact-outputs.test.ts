// --redact over real HTTP and a real DuckDB file: no phone number, e-mail address, card number or
// IBAN of the simulator's truth in report CSV/Parquet/HTML, `query` output or an `export` folder,
// and session_ref replaced by its keyed hash (the same in every output, so joins still work).
// Without --redact the same outputs hold them: the check can fail. Names are not caught (documented).
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { keyedHash } from '../src/redact/index.js';
import type { Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { folderText } from './support/folder-text.js';
import { scratch } from './support/scratch.js';

const { simulator, fileDir } = scratch('redact-outputs');
const KEY = 'a'.repeat(8) + '0123456789abcdef0123456789abcdef';

let sim: Simulator;
let db: string;
/** every personal datum (names aside) of the truth, in the forms the conversations hold it */
let needles: string[];
/** the conversations' session_refs */
let refs: string[];

beforeAll(async () => {
  sim = await simulator({ seed: 2701, conversations: 120, rateLimit: 100_000 });
  db = join(fileDir(), 'test.duckdb');
  const synced = await runCli(['sync'], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: db });
  expect(synced.code, synced.stderr).toBe(0);
  const data = sim.dataset.records.flatMap((r) => sim.dataset.personalData(r.id)?.found ?? []);
  needles = [...new Set(data.filter((d) => d.kind !== 'name').map((d) => d.value))];
  refs = sim.dataset.records.map((r) => sim.dataset.detail(r.id)?.session_ref).filter((s): s is string => typeof s === 'string');
  expect(needles.length).toBeGreaterThan(50);
  expect(refs.length).toBeGreaterThan(10);
}, 300_000);

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { CONVODUCK_DB: db, CONVODUCK_REDACT_KEY: KEY, ...extra };
}

async function cli(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await runCli(args, env(extra));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const leaked = (text: string) => needles.filter((n) => text.includes(n));
const QUERIES = [
  'SELECT * FROM transcript_turns',
  'SELECT * FROM conversations',
  'SELECT * FROM tool_calls',
  'SELECT body FROM raw_conversations',
];

/** Every output the three commands write, as text, with or without --redact. */
async function allOutputs(redact: boolean): Promise<Record<string, string>> {
  const flag = redact ? ['--redact'] : [];
  const out: Record<string, string> = {};
  const csv = fileDir('csv');
  await cli(['report', '--out', csv, ...flag]);
  out.reportCsv = await folderText(csv);
  const parquet = fileDir('parquet');
  await cli(['report', '--out', parquet, '--format', 'parquet', 'conversation_list', 'tool_failure_log', ...flag]);
  out.reportParquet = await folderText(parquet);
  const json = fileDir('json');
  await cli(['report', '--out', json, '--format', 'json', 'conversation_list', 'tool_failure_log', ...flag]);
  out.reportJson = await folderText(json);
  const html = fileDir('html');
  await cli(['report', '--html', '--with-text', '--out', html, ...flag]);
  out.html = await folderText(html);
  for (const format of ['csv', 'json', 'table']) {
    out[`query-${format}`] = (await Promise.all(QUERIES.map((q) => cli(['query', '--format', format, '--max-width', '100000', q, ...flag])))).join('\n');
  }
  const exported = join(fileDir('export'), 'out');
  await cli(['export', '--out', exported, ...flag]);
  out.export = await folderText(exported);
  const exportedCsv = join(fileDir('export-csv'), 'out');
  await cli(['export', '--out', exportedCsv, '--format', 'csv', '--partition-by', 'day', ...flag]);
  out.exportCsv = await folderText(exportedCsv);
  return out;
}

describe('--redact', () => {
  it('without it, the outputs hold the callers’ data (so the check below can fail)', async () => {
    const outputs = await allOutputs(false);
    for (const [name, text] of Object.entries(outputs)) {
      if (name === 'html') continue; // the page holds no transcript text; its tool outputs need not hold a datum
      expect(leaked(text).length, name).toBeGreaterThan(0);
    }
    expect(outputs.export).toContain(refs[0]);
  }, 300_000);

  it('with it, no datum of the truth is in any output, and session_ref is the keyed hash everywhere', async () => {
    const outputs = await allOutputs(true);
    for (const [name, text] of Object.entries(outputs)) {
      expect(leaked(text), name).toEqual([]);
      for (const ref of refs) expect(text.includes(ref), `${name}: ${ref}`).toBe(false);
      expect(text.includes(KEY), name).toBe(false);
    }
    // the same hash in the query output and the export: joins and repeat counts still work
    const hashes = refs.map((r) => keyedHash(r, KEY));
    expect(hashes.every((h) => outputs['query-csv']!.includes(h))).toBe(true);
    expect(hashes.every((h) => outputs.export!.includes(h))).toBe(true);
    expect(outputs.reportCsv).toMatch(/\[(phone|email|card|iban)\]/);
    expect(outputs.html).toContain('data-redacted="true"');
  }, 300_000);

  it('takes CONVODUCK_REDACT=1 as --redact, and --no-redact over it', async () => {
    const on = await cli(['query', '--format', 'csv', 'SELECT session_ref FROM conversations WHERE session_ref IS NOT NULL'], { CONVODUCK_REDACT: '1' });
    expect(on).toContain(keyedHash(refs[0]!, KEY));
    const off = await cli(['query', '--format', 'csv', '--no-redact', 'SELECT session_ref FROM conversations'], { CONVODUCK_REDACT: '1' });
    expect(off).toContain(refs[0]);
  }, 300_000);

  it('without a key: one line, exit 2, nothing written', async () => {
    for (const args of [['query', 'SELECT 1', '--redact'], ['report', '--redact', '--out', fileDir('nokey')], ['export', '--redact', '--out', join(fileDir('nokey-export'), 'out')]]) {
      const r = await runCli(args, { CONVODUCK_DB: db });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^convoduck: [^\n]+ — [^\n]+\n$/);
      expect(r.stdout).toBe('');
    }
    const bad = await runCli(['query', 'SELECT 1'], { CONVODUCK_DB: db, CONVODUCK_REDACT: 'maybe' });
    expect(bad.code).toBe(2);
  }, 300_000);

  it('the page shows no tool payload unless asked, and says whether redaction was on', async () => {
    const dir = fileDir('page');
    await cli(['report', '--html', '--out', dir]);
    const page = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(page).not.toContain('data-col="output_redacted"');
    expect(page).toContain('data-redacted="false"');
    expect(page).toContain('data-with-text="false"');
    const withText = fileDir('page-text');
    await cli(['report', '--html', '--with-text', '--out', withText]);
    expect(readFileSync(join(withText, 'report.html'), 'utf8')).toContain('data-col="output_redacted"');
    const misuse = await runCli(['report', '--with-text', '--out', fileDir('misuse')], env());
    expect(misuse.code).toBe(2);
  }, 300_000);

  it('an export folder stays redacted with one key: a mixed run is refused, forget --out rewrites it redacted', async () => {
    const out = join(fileDir('one-key'), 'out');
    await cli(['export', '--out', out, '--partition-by', 'day', '--redact']);
    const manifest = readFileSync(join(out, 'convoduck-export.json'), 'utf8');
    expect(manifest).toContain('key_check');
    expect(manifest).not.toContain(KEY);
    for (const [args, extra] of [
      [['--no-redact'], {}],
      [['--redact'], { CONVODUCK_REDACT_KEY: 'b'.repeat(40) }],
    ] as const) {
      const r = await runCli(['export', '--out', out, '--partition-by', 'day', '--since', '2d', ...args], env(extra));
      expect(r.code, r.stderr).toBe(2);
      // (after the line that says --since was rounded down to a whole day)
      expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^convoduck: --out .+ — .+$/);
    }
    const plain = join(fileDir('plain'), 'out');
    await cli(['export', '--out', plain]);
    expect((await runCli(['export', '--out', plain, '--redact'], env())).code).toBe(2);

    // forget --out on its own copy of the database: the rewritten partitions are redacted too
    const copy = join(fileDir('forget'), 'copy.duckdb');
    copyFileSync(db, copy);
    const truth = sim.dataset.records.map((r) => sim.dataset.personalData(r.id)!).find((t) => t.found.some((f) => f.kind === 'email'))!;
    const noKey = await runCli(['forget', '--match', truth.caller.email, '--out', out], { CONVODUCK_DB: copy });
    expect(noKey.code, noKey.stderr).toBe(2);
    await cli(['forget', '--match', truth.caller.email, '--out', out], { CONVODUCK_DB: copy });
    const text = await folderText(out);
    expect(leaked(text)).toEqual([]);
    expect(refs.some((r) => text.includes(r))).toBe(false);
  }, 300_000);
});
