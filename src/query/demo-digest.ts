// The digest `convoduck demo` prints at its end: a few rows of three reports it has just written,
// read back from their CSV files as tables, each under a title naming the file.

import type { Writable } from 'node:stream';
import { sqlText } from '../store/sql.js';
import { runQuery } from './query.js';

const DIGEST: { title: string; sql: (reports: string) => string }[] = [
  {
    title: 'Agents, best contained first (reports/agent_leaderboard.csv)',
    sql: (dir) => `SELECT agent_name, conversations, completion_rate, transfer_rate, hang_up_rate,
                          median_duration_sec, tool_failure_rate
                   FROM read_csv(${sqlText(`${dir}/agent_leaderboard.csv`)}) LIMIT 8`,
  },
  {
    title: 'Where callers are handed to a human (reports/transfer_nodes.csv)',
    sql: (dir) => `SELECT agent_name, node_key, transfers, share, visit_transfer_rate
                   FROM read_csv(${sqlText(`${dir}/transfer_nodes.csv`)}) ORDER BY transfers DESC LIMIT 6`,
  },
  {
    title: 'Tools that fail (reports/tool_failures.csv)',
    sql: (dir) => `SELECT slug, calls, failures, failure_rate, failures_by_status,
                          completion_rate_with_failure, completion_rate_without_failure
                   FROM read_csv(${sqlText(`${dir}/tool_failures.csv`)}) ORDER BY failures DESC LIMIT 6`,
  },
];

/** Writes each digest table to `out`, reading the reports written to `reportsDir`. */
export async function writeDemoDigest(dbPath: string, reportsDir: string, out: Writable): Promise<void> {
  for (const { title, sql } of DIGEST) {
    out.write(`\n${title}\n`);
    await runQuery(dbPath, sql(reportsDir), { format: 'table', out });
  }
}
