import type { Command } from 'commander';
import { StoreError } from '../../shared/errors.js';
import { resolveDbPath } from '../config/db-path.js';
import { UsageError } from '../errors.js';

export function registerRebuild(program: Command): void {
  program
    .command('rebuild')
    .summary('re-derive every table from the stored raw responses (no API request)')
    .description(
      'Re-derive conversations, transcript_turns, tool_calls, node_visits, agents (with behavior and ' +
        'workflow), agent_versions, workflow_nodes, tools and connections from the raw API responses ' +
        'kept in the database, in one transaction. Use it after upgrading convoduck or if a derived ' +
        'table was damaged; it never contacts the API.',
    )
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .addHelpText('after', '\nExamples:\n  convoduck rebuild\n  convoduck rebuild --db /data/support.duckdb')
    .action(async (flags: { db?: string }) => {
      const dbPath = resolveDbPath(flags.db);
      const started = Date.now();
      const [{ Database }, { rebuild }] = await Promise.all([import('../../store/database.js'), import('../../store/derive.js')]);
      try {
        const counts = await Database.with(
          dbPath,
          async (db) => {
            await rebuild(db);
            return db.one<Record<string, number>>(
              `SELECT (SELECT count(*) FROM conversations)::INTEGER AS conversations,
                      (SELECT count(*) FROM transcript_turns)::INTEGER AS transcript_turns,
                      (SELECT count(*) FROM tool_calls)::INTEGER AS tool_calls,
                      (SELECT count(*) FROM node_visits)::INTEGER AS node_visits,
                      (SELECT count(*) FROM agents)::INTEGER AS agents,
                      (SELECT count(*) FROM agent_versions)::INTEGER AS agent_versions,
                      (SELECT count(*) FROM workflow_nodes)::INTEGER AS workflow_nodes`,
            );
          },
          { mustExist: true },
        );
        const summary = Object.entries(counts ?? {})
          .map(([table, n]) => `${n} ${table}`)
          .join(', ');
        process.stderr.write(`rebuilt ${dbPath} in ${((Date.now() - started) / 1000).toFixed(1)}s: ${summary}\n`);
      } catch (err) {
        if (err instanceof StoreError) throw new UsageError(err.message);
        throw err;
      }
    });
}
