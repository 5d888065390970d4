// A phone number in brackets or quotes is redacted like one in a sentence, over real HTTP and a
// real DuckDB file: callers' turns that hold phone numbers of the documented forms (German,
// British, French, Australian, North American) in ( ), [ ], « », quotes, before punctuation and
// after a line break come out of `query --redact` and `export --redact` as placeholders, and
// `sync --redact-at-rest` never stores them. Without redaction the same outputs hold them, so
// each check can fail.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { fileBytes, foundIn } from './support/db-snapshot.js';
import { folderText } from './support/folder-text.js';
import { scratch } from './support/scratch.js';

const { simulator, fileDir } = scratch('redact-enclosed');
const KEY = 'e'.repeat(8) + '0123456789abcdef0123456789abcdef';

/** A caller's turn, and the phone numbers it holds. */
const TURNS: Array<{ text: string; phones: string[] }> = [
  { text: 'my number (+44 7700 900123), after six please', phones: ['+44 7700 900123'] },
  { text: 'meine Handynummer (0171 2345678), ab 18 Uhr', phones: ['0171 2345678'] },
  { text: 'mein Festnetz (+49 30 1234567).', phones: ['+49 30 1234567'] },
  { text: 'en France (+33 6 12 34 56 78) ou (06 12 34 56 78)', phones: ['+33 6 12 34 56 78', '06 12 34 56 78'] },
  { text: 'Sydney office (+61 2 9876 5432)!', phones: ['+61 2 9876 5432'] },
  { text: 'call me (+1 (415) 555-0132) or [212-555-0147]', phones: ['+1 (415) 555-0132', '212-555-0147'] },
  { text: 'London «020 7946 0958», mobile "+44 20 7946 0321";', phones: ['020 7946 0958', '+44 20 7946 0321'] },
  { text: 'the number is\n(+49 (0)89 1234567)\nthanks', phones: ['+49 (0)89 1234567'] },
];
const PHONES = TURNS.flatMap((t) => t.phones);

let sim: Simulator;
let clearDb: string;
let restDb: string;
let ids: string[];

function env(dbPath: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath, CONVODUCK_REDACT_KEY: KEY, ...extra };
}

async function cli(args: string[], dbPath: string): Promise<string> {
  const r = await runCli(args, env(dbPath));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

const leaked = (text: string) => PHONES.filter((p) => text.includes(p));
const TURNS_SQL = 'SELECT conversation_id, seq, text FROM transcript_turns WHERE seq = 0 ORDER BY conversation_id';

beforeAll(async () => {
  sim = await simulator({ seed: 3602, conversations: 30, rateLimit: 100_000 });
  const finished = sim.dataset.records.filter((r) => (sim.dataset.detail(r.id)?.transcript?.length ?? 0) > 0 && sim.dataset.detail(r.id)?.ended_at);
  expect(finished.length).toBeGreaterThanOrEqual(TURNS.length);
  ids = finished.slice(0, TURNS.length).map((r) => r.id);
  TURNS.forEach((t, i) => sim.dataset.setTurnText(ids[i]!, 0, t.text));
  clearDb = join(fileDir(), 'clear.duckdb');
  restDb = join(fileDir(), 'rest.duckdb');
  await cli(['sync'], clearDb);
  await cli(['sync', '--redact-at-rest'], restDb);
  for (const path of [clearDb, restDb]) await Database.with(path, (db) => db.run('CHECKPOINT'));
}, 300_000);

describe('a phone number in brackets or quotes', () => {
  it('query --redact replaces it, as in the report of the issue', async () => {
    const sql =
      "SELECT 'me (+49 30 1234567)' AS text UNION ALL SELECT 'x (0171 1234567) y' UNION ALL SELECT 'reach me at +49 30 1234567 ok'";
    expect(await cli(['query', '--format', 'csv', sql], clearDb)).toContain('(0171 1234567)');
    expect(await cli(['query', '--format', 'csv', '--redact', sql], clearDb)).toBe('text\nme ([phone])\nx ([phone]) y\nreach me at [phone] ok\n');
  }, 300_000);

  it('query --redact and export --redact replace every one of the stored turns', async () => {
    const clear = await cli(['query', '--format', 'json', TURNS_SQL], clearDb);
    expect(leaked(clear)).toEqual(PHONES);
    const redacted = await cli(['query', '--format', 'json', '--redact', TURNS_SQL], clearDb);
    expect(leaked(redacted)).toEqual([]);
    const rows = JSON.parse(redacted) as Array<{ conversation_id: string; text: string }>;
    const byId = new Map(rows.map((r) => [r.conversation_id, r.text]));
    expect(byId.get(ids[0]!)).toBe('my number ([phone]), after six please');
    expect(byId.get(ids[5]!)).toBe('call me ([phone]) or [[phone]]');
    expect(byId.get(ids[6]!)).toBe('London «[phone]», mobile "[phone]";');
    expect(byId.get(ids[7]!)).toBe('the number is\n([phone])\nthanks');

    const plainOut = join(fileDir('export-clear'), 'out');
    await cli(['export', '--out', plainOut], clearDb);
    expect(leaked(await folderText(plainOut)).length).toBeGreaterThan(0);
    const out = join(fileDir('export'), 'out');
    await cli(['export', '--out', out, '--redact'], clearDb);
    expect(leaked(await folderText(out))).toEqual([]);
  }, 300_000);

  it('sync --redact-at-rest stores none of them, in any table or the file', async () => {
    expect(foundIn(fileBytes(clearDb), PHONES).length).toBeGreaterThan(0);
    expect(foundIn(fileBytes(restDb), PHONES)).toEqual([]);
    const stored = await cli(['query', '--format', 'json', TURNS_SQL], restDb);
    expect(leaked(stored)).toEqual([]);
    const rows = JSON.parse(stored) as Array<{ conversation_id: string; text: string }>;
    expect(rows.find((r) => r.conversation_id === ids[3])?.text).toBe('en France ([phone]) ou ([phone])');
    const bodies = await cli(['query', '--format', 'csv', 'SELECT body FROM raw_conversations'], restDb);
    expect(leaked(bodies)).toEqual([]);
  }, 300_000);
});
