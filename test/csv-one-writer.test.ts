// `report` and `query --format csv` write CSV by one rule set: the same rows give the same bytes
// whichever command wrote them (quoting, timestamps, NULL and '', lists, formula neutralisation
// and --raw), also when the report's rows are scalar and DuckDB's COPY writes them (csvLinesSql).
// Over a real sync from the simulator and the built CLI.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('csv-one-writer', { rateLimit: 100_000 });

// Rows with every kind of cell that a CSV writer can get wrong, beside the synced conversations.
const ROWS_SQL = `SELECT c.id, c.started_at, c.started_at::TIMESTAMP AS started_wall, c.duration_sec,
       round(c.duration_sec / 7.0, 4) AS sevenths, c.duration_sec::DOUBLE AS whole, c.summary, c.outcome, c.is_final,
       c.started_at::DATE AS day, t.text AS first_turn, [c.message_count, 1] AS counts,
       {'channel': c.channel, 'n': c.message_count} AS shape,
       x.tricky
FROM conversations c
LEFT JOIN transcript_turns t ON t.conversation_id = c.id AND t.seq = 0
CROSS JOIN (VALUES ('=1+1'), ('-5'), ('+x'), ('@me'), (' lead'), ('trail '), ('a"b,c'), (''), (NULL),
                   ('line
break'), (chr(9) || 'tab'), ('plain')) AS x(tricky)
ORDER BY c.id, x.tricky NULLS LAST
LIMIT 400`;

/** The same rows without the list and struct columns: every column one csvLinesSql renders. */
const SCALAR_ROWS_SQL = ROWS_SQL.replace(', [c.message_count, 1] AS counts,\n       {\'channel\': c.channel, \'n\': c.message_count} AS shape,', ',');

const reportFile = (sql: string) => `-- Title: Same rows
--
-- One row: a conversation beside one tricky text cell.
--
-- Columns:
--   id           the conversation
--
-- Parameters: none.

${sql};
`;

describe('one CSV writer', () => {
  it('report and query --format csv write the same rows as the same bytes, with and without --raw', async () => {
    const sim = await simulator({ seed: 26, conversations: 40 });
    const dbPath = tempDb();
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    const sqlDir = join(dirname(dbPath), 'mine');
    mkdirSync(sqlDir);
    expect(SCALAR_ROWS_SQL).not.toContain('counts');

    for (const [sql, raw] of [[ROWS_SQL, false], [ROWS_SQL, true], [SCALAR_ROWS_SQL, false], [SCALAR_ROWS_SQL, true]] as const) {
      writeFileSync(join(sqlDir, 'same_rows.sql'), reportFile(sql));
      const flag = raw ? ['--raw'] : [];
      const out = join(dirname(dbPath), `${raw ? 'raw' : 'safe'}-${sql === ROWS_SQL ? 'nested' : 'scalar'}`);
      const report = await runCli(['report', 'same_rows', '--db', dbPath, '--sql-dir', sqlDir, '--out', out, '--tz', 'UTC', ...flag]);
      expect(report.code, report.stderr).toBe(0);
      const query = await runCli(['query', sql, '--db', dbPath, '--format', 'csv', ...flag]);
      expect(query.code, query.stderr).toBe(0);
      const fromReport = readFileSync(join(out, 'same_rows.csv'), 'utf8');
      expect(fromReport.split('\n').length).toBeGreaterThan(400);
      expect(query.stdout).toBe(fromReport);
      // the rules themselves: a formula-looking text cell is neutralised unless --raw, numbers never
      expect(fromReport.includes(",'=1+1\n")).toBe(!raw);
      expect(fromReport.includes(',=1+1\n')).toBe(raw);
      expect(fromReport).toContain(',"line\nbreak"\n');
      expect(fromReport).toContain(',"a""b,c"\n');
      expect(fromReport).toContain(',"trail "\n');
    }
  }, 300_000);
});
