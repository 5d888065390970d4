// A report's columns explain themselves where its rows go: `columns.md` beside the files, written
// with them from each `.sql` header, and each Parquet file's key-value metadata (read back by
// hyparquet, a reader that is not DuckDB).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadReports } from '../src/reports/catalog.js';
import { headerColumns } from '../src/reports/sql-file.js';
import { sync } from '../src/crawler/sync.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, fileDir } = scratch('column-docs', { rateLimit: 100_000 });
const REPORTS = loadReports();
let db: string;

beforeAll(async () => {
  const sim = await simulator({ seed: 5, conversations: 120 });
  db = join(fileDir('db'), 'store.duckdb');
  expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath: db, now: () => sim.clock() })).status).toBe('ok');
}, 300_000);

/** columns.md as report name → its columns' [name, meaning], in order. */
function readColumnDocs(dir: string): Map<string, [string, string][]> {
  const text = readFileSync(join(dir, 'columns.md'), 'utf8');
  const sections = new Map<string, [string, string][]>();
  for (const section of text.split('\n## ').slice(1)) {
    const name = section.slice(0, section.indexOf(':'));
    sections.set(name, [...section.matchAll(/^\| `([^`]+)` \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!.replaceAll('\\|', '|')]));
  }
  return sections;
}

describe('columns.md beside the reports', () => {
  it('describes every column of every CSV written, in the order of its header line, as the .sql header does', async () => {
    const out = fileDir('csv');
    const result = await runCli(['report', '--db', db, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const docs = readColumnDocs(out);
    expect([...docs.keys()].sort()).toEqual(REPORTS.map((r) => r.name).sort());
    for (const report of REPORTS) {
      const header = readFileSync(join(out, `${report.name}.csv`), 'utf8').split('\n')[0]!.split(',');
      expect(docs.get(report.name)!.map(([name]) => name), report.name).toEqual(header);
      expect(docs.get(report.name), report.name).toEqual(headerColumns(report.header).map((c) => [c.name, c.description]));
    }
    // the quality reports' figures a CSV alone does not explain
    const precursors = new Map(docs.get('handoff_precursors'));
    expect(precursors.get('share')).toBe('with_event ÷ conversations');
    expect(precursors.get('lift')).toMatch(/^share ÷ completed_share: how many times more often the event comes before this end than before a completion/);
  });

  it('follows what the folder holds: a run of some reports keeps the others’ files described, a new folder only its own', async () => {
    const out = fileDir('some');
    expect((await runCli(['report', 'outcomes', '--db', db, '--out', out])).code).toBe(0);
    expect([...readColumnDocs(out).keys()]).toEqual(['outcomes']);
    expect((await runCli(['report', 'coverage', '--db', db, '--out', out, '--format', 'json'])).code).toBe(0);
    expect([...readColumnDocs(out).keys()]).toEqual(['coverage', 'outcomes']);
    expect(readdirSync(out).sort()).toEqual(['columns.md', 'coverage.json', 'outcomes.csv']);
  });
});

describe('Parquet key-value metadata', () => {
  it('holds the report, its title and each column’s meaning', async () => {
    const out = fileDir('parquet');
    const result = await runCli(['report', 'handoff_precursors', 'repeat_contacts', '--db', db, '--out', out, '--format', 'parquet']);
    expect(result.code, result.stderr).toBe(0);
    for (const name of ['handoff_precursors', 'repeat_contacts']) {
      const report = REPORTS.find((r) => r.name === name)!;
      const metadata = await parquetMetadataAsync(await asyncBufferFromFile(join(out, `${name}.parquet`)));
      const kv = new Map((metadata.key_value_metadata ?? []).map((e) => [e.key, e.value]));
      expect(kv.get('convoduck:report')).toBe(name);
      expect(kv.get('convoduck:title')).toBe(report.title);
      const columns = headerColumns(report.header);
      expect(columns.length).toBeGreaterThan(5);
      for (const c of columns) expect(kv.get(c.name), `${name}.${c.name}`).toBe(c.description);
      // every column of the file is described
      const fileColumns = metadata.schema.slice(1).map((s) => s.name);
      expect(fileColumns.filter((c) => !kv.has(c)), name).toEqual([]);
    }
  });
});
