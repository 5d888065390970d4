import type { Command } from 'commander';
import { StoreError } from '../../shared/errors.js';
import { resolveDbLayout } from '../config/db-path.js';
import { withDbDirOption } from '../db-dir/options.js';
import { spaceFilesIn } from '../db-dir/space-files.js';
import { UsageError } from '../errors.js';

export function registerRebuild(program: Command): void {
  const command = program
    .command('rebuild')
    .summary('re-derive every table from the stored raw responses (no API request)')
    .description(
      'Re-derive conversations, transcript_turns, tool_calls, node_visits, agents (with behavior and ' +
        'workflow), agent_versions, workflow_nodes, tools and connections from the raw API responses ' +
        'kept in the database, in one transaction. Use it after upgrading convoduck or if a derived ' +
        'table was damaged; it never contacts the API. With --db-dir, every space file in turn, each in its own transaction.',
    )
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)');
  withDbDirOption(command)
    .addHelpText('after', '\nExamples:\n  convoduck rebuild\n  convoduck rebuild --db /data/support.duckdb\n  convoduck rebuild --db-dir /data/spaces')
    .action(async (flags: { db?: string; dbDir?: string }) => {
      const layout = resolveDbLayout(flags);
      const paths = layout.kind === 'dir' ? spaceFilesIn(layout.dir).map((f) => f.path) : [layout.path];
      const { rebuildDatabase } = await import('../../store/rebuild.js');
      for (const dbPath of paths) {
        const started = Date.now();
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
      }
    });
}
