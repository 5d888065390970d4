// Personal data only said, not typed (#48), over real HTTP and a real DuckDB file: a simulator
// whose caller "+1 415 555 0198" makes a share of the conversations, and on calls gives the number
// as a speech recogniser writes it ("four one five, five five five, zero one nine eight").
// `forget --match +14155550198` erases the conversations that hold it only in words (and those
// that hold it typed), a spoken --match finds the typed ones too, and `query --redact` shows
// none of the spoken forms.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateDataset, type Dataset } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, fileDir } = scratch('redact-spoken');
const KEY = 'b'.repeat(8) + '0123456789abcdef0123456789abcdef';
const PLANTED = { phoneInternational: '+1 415 555 0198', phoneNational: '(415) 555-0198', share: 0.2, saidOnly: true };

let dataset: Dataset;
let golden: string;
let baseUrl = '';
/** the planted caller's conversations: those that hold the number in words only, and all that hold it in any form */
let spokenOnly: string[];
let holding: string[];

beforeAll(async () => {
  dataset = generateDataset({ seed: 48, conversations: 120, now: new Date('2026-11-20T12:00:00Z'), plantedCaller: PLANTED });
  const sim = await simulator({ dataset, rateLimit: 100_000 });
  baseUrl = sim.baseUrl;
  golden = join(fileDir(), 'golden.duckdb');
  const synced = await runCli(['sync'], { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: golden });
  expect(synced.code, synced.stderr).toBe(0);
  holding = [];
  spokenOnly = [];
  for (const r of dataset.records) {
    const truth = dataset.personalData(r.id)!;
    const phones = truth.found.filter((f) => f.kind === 'phone');
    if (truth.caller.phoneE164 !== '+14155550198' || phones.length === 0) continue;
    holding.push(r.id);
    if (phones.every((f) => !/\d/.test(f.value))) spokenOnly.push(r.id);
  }
  expect(spokenOnly.length, 'conversations holding the number only in words').toBeGreaterThanOrEqual(1);
  expect(holding.length).toBeGreaterThan(spokenOnly.length);
}, 300_000);

let copies = 0;
function copy(): string {
  const path = join(fileDir(), `copy-${++copies}.duckdb`);
  copyFileSync(golden, path);
  return path;
}

const idsOf = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((l) => l.split('\t')[0]!).sort();

describe('a phone number only said', () => {
  it('forget --match +14155550198 erases the conversations that hold it in words, and those that hold it typed', async () => {
    const db = copy();
    const detail = JSON.stringify(dataset.detail(spokenOnly[0]!));
    expect(detail).not.toMatch(/415.?555.?0198/);
    expect(detail).toMatch(/four one five|vier eins fünf/);
    const result = await runCli(['forget', '--match', '+14155550198'], { CONVODUCK_DB: db });
    expect(result.code, result.stderr).toBe(0);
    expect(idsOf(result.stdout)).toEqual([...holding].sort());
    const left = await runCli(['query', '--format', 'csv', `SELECT count(*) AS n FROM conversations WHERE id IN (${holding.map((id) => `'${id}'`).join(',')})`], { CONVODUCK_DB: db });
    expect(left.stdout.trim().split('\n')[1]).toBe('0');
  }, 120_000);

  it('a --match said in words finds the conversations that hold it typed too', async () => {
    const result = await runCli(['forget', '--dry-run', '--match', 'four one five, five five five, zero one nine eight'], { CONVODUCK_DB: copy() });
    expect(result.code, result.stderr).toBe(0);
    expect(idsOf(result.stdout)).toEqual([...holding].sort());
  }, 120_000);

  it('query --redact shows none of the spoken numbers, e-mail addresses and cards; without it they are there', async () => {
    const spoken = [
      ...new Set(
        dataset.records.flatMap((r) => dataset.personalData(r.id)!.found.filter((f) => f.kind !== 'name' && !/\d/.test(f.value) || / (?:at|ät) /.test(f.value)).map((f) => f.value)),
      ),
    ];
    expect(spoken.length).toBeGreaterThanOrEqual(10);
    const env = { CONVODUCK_DB: golden, CONVODUCK_REDACT_KEY: KEY };
    // one column named text (cleaned by that name under --redact): turns, summaries, tool payloads
    const sql =
      'SELECT text FROM transcript_turns UNION ALL SELECT summary AS text FROM conversations ' +
      "UNION ALL SELECT concat_ws(' ', input_redacted::VARCHAR, output_redacted::VARCHAR) AS text FROM tool_calls";
    const query = async (redact: string[]) => {
      const r = await runCli(['query', ...redact, '--format', 'csv', '--max-width', '100000', sql], env);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const plain = await query([]);
    expect(spoken.filter((s) => !plain.includes(s))).toEqual([]);
    const redacted = await query(['--redact']);
    expect(spoken.filter((s) => redacted.includes(s))).toEqual([]);
    expect(redacted).toContain('My number is [phone].');
  }, 120_000);
});
