// The CSV rules written twice (src/output/csv.ts): CsvWriter in JavaScript and csvLinesSql in
// DuckDB must give the same bytes for every value of every type the SQL renders, in a session
// whose TimeZone is not UTC, with and without --raw.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvHeader, csvLinesSql, CsvWriter } from '../../src/output/csv.js';
import { sessionWallClock } from '../../src/output/values.js';

const ZONE = 'America/New_York';

// one column per type; each row a value that a writer could get wrong
const VALUES = `SELECT * FROM (VALUES
  ('plain', 1::TINYINT, -5, 9223372036854775807, 170141183460469231731687303715884105727::HUGEINT, 5.0::DOUBLE, 1.25::DECIMAL(9,4), true,
   DATE '2026-11-26', TIMESTAMPTZ '2026-11-26 12:00:00+00', TIMESTAMP '2026-03-08 02:30:00', TIMESTAMP_S '2026-01-01 00:00:01',
   TIMESTAMP_MS '2026-01-01 00:00:01.250', TIMESTAMP_NS '2026-01-01 00:00:01.123456789', '00000000-0000-0000-0000-000000000001'::UUID, '{"a": [1, 2]}'::JSON),
  ('', NULL, 0, -9223372036854775808, 0, 1e16::DOUBLE, -0.0001::DECIMAL(9,4), false,
   DATE '0001-01-01', TIMESTAMPTZ '2026-11-26 12:00:00.123+00', TIMESTAMP '2026-11-01 01:30:00', NULL,
   NULL, NULL, NULL, '"=1+1"'),
  (NULL, 127, NULL, NULL, NULL, 0.00001::DOUBLE, NULL, NULL,
   NULL, TIMESTAMPTZ '2026-11-26 12:00:00.123456+00', NULL, NULL, NULL, NULL, NULL, NULL),
  ('=1+1', 0, 1, 1, 1, 'nan'::DOUBLE, 0, NULL, NULL, 'infinity'::TIMESTAMPTZ, '-infinity'::TIMESTAMP, NULL, NULL, NULL, NULL, NULL),
  ('-5', 0, 1, 1, 1, 'inf'::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('+x', 0, 1, 1, 1, '-inf'::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('@me', 0, 1, 1, 1, -0.0::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (' lead', 0, 1, 1, 1, 0.1::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('trail ', 0, 1, 1, 1, 123456789012345678::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('a"b,c', 0, 1, 1, 1, 1.5e-7::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('line' || chr(10) || 'break', 0, 1, 1, 1, 1e21::DOUBLE, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (chr(9) || 'tab', 0, 1, 1, 1, 1/3, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('nbsp' || chr(160), 0, 1, 1, 1, 2/3, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (chr(8232) || 'ls', 0, 1, 1, 1, 1e-4, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('cr' || chr(13), 0, 1, 1, 1, 1e15, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('ünïcødé 👍🏽 עברית', 0, 1, 1, 1, 7, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('ends in a mark ' || chr(769), 0, 1, 1, 1, 7, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('👍' || chr(12288), 0, 1, 1, 1, 7, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('ends in an emoji 👍🏽', 0, 1, 1, 1, 7, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  ('crlf' || chr(13) || chr(10), 0, 1, 1, 1, 7, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS t("text", tiny, int, big, huge, dbl, dec, bool, day, instant, wall, wall_s, wall_ms, wall_ns, id, doc)`;

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`SET TimeZone = '${ZONE}'`);
  await connection.run(`CREATE TABLE v AS ${VALUES}`);
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

async function bothWays(raw: boolean): Promise<{ js: string; sql: string }> {
  const reader = await connection.runAndReadAll('SELECT * FROM v');
  const columns = reader.columnNames().map((name, i) => ({ name, type: reader.columnType(i) }));
  const writer = new CsvWriter(columns, { wall: sessionWallClock(ZONE), raw });
  const js = writer.header() + reader.getRows().map((row) => writer.row(row)).join('');
  const linesSql = csvLinesSql(columns.map((c) => ({ name: c.name, typeId: c.type.typeId, alias: c.type.alias })), 'v', { raw });
  expect(linesSql).not.toBeNull();
  const lines = await connection.runAndReadAll(linesSql!);
  const sql = csvHeader(columns.map((c) => c.name)) + lines.getRowObjectsJS().map((r) => `${String(r.line)}\n`).join('');
  return { js, sql };
}

describe('csvLinesSql', () => {
  it('renders every value as CsvWriter does, formulas neutralised', async () => {
    const { js, sql } = await bothWays(false);
    expect(sql).toBe(js);
    expect(js).toContain("'=1+1");
  });

  it('and with --raw', async () => {
    const { js, sql } = await bothWays(true);
    expect(sql).toBe(js);
    expect(js).not.toContain("'=1+1");
  });

  it('leaves lists, structs and maps to CsvWriter', () => {
    expect(csvLinesSql([{ name: 'l', typeId: 24 /* LIST */ }], 'v')).toBeNull();
  });
});
