import type { Command } from 'commander';
import { formatInstant, parseDurationArg } from '../../shared/time.js';
import { resolveDbPath } from '../config/db-path.js';

interface ForgetFlags {
  db?: string;
  id?: string[];
  sessionRef?: string[];
  match?: string[];
  dryRun?: boolean;
  out?: string;
  wait: string;
}

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

export function registerForget(program: Command): void {
  program
    .command('forget')
    .summary('erase conversations for good: by id, session_ref, or the caller’s phone number or e-mail')
    .description(
      'Erase conversations on request (an erasure request, a caller who asks to be forgotten): every row ' +
        'of them in every table (raw bodies, list entries, transcript, tool calls, path, drift, errors), ' +
        'then the database file is rewritten so that no byte of them is left in it. Each erased ' +
        'conversation is logged in the erasures table (id, space, when, rule; never its content or the ' +
        'text it was matched by) and never stored or fetched again by a later sync. Selectors add up.',
    )
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--id <id>', 'a conversation id (repeatable)', repeatable)
    .option('--session-ref <ref>', 'every conversation whose session_ref is <ref> (repeatable)', repeatable)
    .option('--match <phone-or-email>', 'every conversation whose stored text holds this phone number (any written form) or e-mail address (repeatable)', repeatable)
    .option('--dry-run', 'list what would be erased (id, space, started_at) and change nothing')
    .option('--out <dir>', 'also rewrite this export folder’s partitions that held them')
    .option('--wait <duration>', 'how long to wait while another process holds the file', '30s')
    .addHelpText(
      'after',
      `
Examples:
  convoduck forget --match "+49 30 1234567" --dry-run    # what would go: ids, spaces, starts
  convoduck forget --match "+49 30 1234567"              # also finds 030 1234567, +49 (0)30 1234567
  convoduck forget --match ann@example.com --out /mnt/lake
  convoduck forget --id c_01HV... --id c_01HW...
  convoduck forget --session-ref ws_4f2a9c

With CONVODUCK_REDACT_KEY (or CONVODUCK_REDACT_KEY_FILE) set, the erasures table keeps a keyed
hash of each session_ref and match, so a later request can be checked against it; without, nothing.
Retention (erase by age, or what the source deleted) is a setting of sync: --retain-days, --erase-deleted.

Exit codes: 0 done (also when nothing matched), 2 no selector, an unknown --id, a --match that is
no phone number or e-mail address; 75 a sync holds the database: run it again once that ends
(nothing is changed either way).`,
    )
    .action(async (flags: ForgetFlags) => {
      const dbPath = resolveDbPath(flags.db);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const [{ checkExportFolder, rewriteExport }, { forget }] = await Promise.all([
        import('../../erase/export-rewrite.js'),
        import('../../erase/forget.js'),
      ]);
      if (flags.out !== undefined && !flags.dryRun) checkExportFolder(flags.out);
      const result = await forget({
        dbPath,
        ids: flags.id,
        sessionRefs: flags.sessionRef,
        matches: flags.match,
        dryRun: flags.dryRun,
        lockTimeoutMs,
      });
      for (const c of result.erased) {
        process.stdout.write(`${c.id}\t${c.space ?? ''}\t${c.startedAt ? formatInstant(c.startedAt) : ''}\t${c.rule}\n`);
      }
      const n = result.erased.length;
      const noun = n === 1 ? 'conversation' : 'conversations';
      if (result.dryRun) {
        process.stderr.write(`forget --dry-run: ${n} ${noun} would be erased from ${dbPath}; nothing was changed\n`);
      } else {
        const bytes = result.rewritten ? '; the file was rewritten, no byte of them is left in it' : '';
        process.stderr.write(`forget: erased ${n} ${noun} from ${dbPath}${bytes}\n`);
      }
      if (result.alreadyErased.length > 0) process.stderr.write(`forget: already erased earlier: ${result.alreadyErased.join(', ')}\n`);
      if (flags.out !== undefined && !result.dryRun) {
        const summary = await rewriteExport(dbPath, flags.out, result.erased);
        if (summary) process.stderr.write(`forget: rewrote ${describeRewrite(summary)} of ${summary.outDir}\n`);
      }
    });
}

/** What `forget --out` rewrote: the partitions that held the erased conversations, or whole tables. */
function describeRewrite(summary: { partitionBy: string | null; erasedPartitions: string[]; tables: unknown[] }): string {
  if (summary.partitionBy === null || !/day|month/.test(summary.partitionBy)) return `${summary.tables.length} tables`;
  const n = summary.erasedPartitions.length;
  return `the ${n} partition${n === 1 ? '' : 's'} that held them (${summary.erasedPartitions.join(', ') || 'none left'})`;
}
