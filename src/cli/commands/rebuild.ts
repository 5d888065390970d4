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
      const { rebuildDatabase } = await import('../../store/rebuild.js');
      try {
        const counts = await rebuildDatabase(dbPath);
        const summary = Object.entries(counts)
          .map(([table, n]) => `${n} ${table}`)
          .join(', ');
        process.stderr.write(`rebuilt ${dbPath} in ${((Date.now() - started) / 1000).toFixed(1)}s: ${summary}\n`);
      } catch (err) {
        if (err instanceof StoreError) throw new UsageError(err.message);
        throw err;
      }
    });
}
