import type { Command } from 'commander';
import { formatInstant, parseDurationArg } from '../../shared/time.js';
import type { ForgetResult } from '../../erase/forget.js';
import { resolveDbLayout } from '../config/db-path.js';
import { withDbDirOption } from '../db-dir/options.js';
import { READER_WAIT_HELP } from '../grammar.js';

interface ForgetFlags {
  db?: string;
  dbDir?: string;
  id?: string[];
  sessionRef?: string[];
  match?: string[];
  dryRun?: boolean;
  out?: string;
  wait: string;
}

const repeatable = (value: string, previous: string[] = []) => [...previous, value];

export function registerForget(program: Command): void {
  const command = program
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
    .option('--match <phone-or-email>', 'every conversation whose stored text holds this phone number or e-mail address, written or said in words (repeatable)', repeatable)
    .option('--dry-run', 'list what would be erased (id, space, started_at) and change nothing')
    .option('--out <dir>', 'also rewrite this export folder’s partitions that held them')
    .option('--wait <duration>', READER_WAIT_HELP, '30s');
  withDbDirOption(command)
    .addHelpText(
      'after',
      `
Examples:
  convoduck forget --match "+49 30 1234567" --dry-run    # what would go: ids, spaces, starts
  convoduck forget --match "+49 30 1234567"              # also finds 030 1234567, +49 (0)30 1234567
  convoduck forget --match ann@example.com --out /mnt/lake
  convoduck forget --id c_01HV... --id c_01HW...
  convoduck forget --session-ref ws_4f2a9c
  convoduck forget --db-dir /data/spaces --match ann@example.com   # in whichever space files hold her

With CONVODUCK_REDACT_KEY (or CONVODUCK_REDACT_KEY_FILE) set, the erasures table keeps a keyed
hash of each session_ref and match, so a later request can be checked against it; without, nothing.
Retention (erase by age, or what the source deleted) is a setting of sync: --retain-days, --erase-deleted.

Exit codes: 0 done (also when nothing matched), 2 no selector, an unknown --id, a --match that is
no phone number or e-mail address; 75 a sync holds the database: run it again once that ends
(nothing is changed either way; with --db-dir, the files before the busy one are done, and
running it again finishes the rest).`,
    )
    .action(async (flags: ForgetFlags) => {
      const layout = resolveDbLayout(flags);
      const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
      const [{ checkExportFolder, rewriteExport }, { forget }] = await Promise.all([
        import('../../erase/export-rewrite.js'),
        import('../../erase/forget.js'),
      ]);
      const dryRun = flags.dryRun === true;
      if (flags.out !== undefined && !dryRun) checkExportFolder(flags.out);
      const selectors = { ids: flags.id ?? [], sessionRefs: flags.sessionRef ?? [], matches: flags.match ?? [], dryRun, lockTimeoutMs };
      /** what a file lost, on stdout and stderr, and the export folder's partitions that held it */
      const report = async (dbPath: string, result: ForgetResult) => {
        printForgotten(dbPath, result, dryRun);
        if (flags.out !== undefined && !dryRun) {
          const summary = await rewriteExport(dbPath, flags.out, result.erased);
          if (summary) process.stderr.write(`forget: rewrote ${describeRewrite(summary)} of ${summary.outDir}\n`);
        }
      };
      if (layout.kind === 'dir') {
        const { forgetInDir } = await import('../forget/forget-dir.js');
        const done = await forgetInDir({ dir: layout.dir, ...selectors }, ({ file, result }) => report(file, result));
        const n = done.reduce((sum, d) => sum + d.result.erased.length, 0);
        const what = `${n} ${n === 1 ? 'conversation' : 'conversations'}`;
        const where = `${done.filter((d) => d.result.erased.length > 0).length} space file(s) of ${layout.dir}`;
        process.stderr.write(dryRun ? `forget --dry-run: ${what} would be erased from ${where}; nothing was changed\n` : `forget: erased ${what} from ${where}\n`);
        return;
      }
      await report(layout.path, await forget({ dbPath: layout.path, ...selectors }));
    });
}

/** The erased conversations on stdout (id, space, start, rule), what happened to the file on stderr. */
function printForgotten(dbPath: string, result: ForgetResult, dryRun: boolean): void {
  for (const c of result.erased) {
    process.stdout.write(`${c.id}\t${c.space ?? ''}\t${c.startedAt ? formatInstant(c.startedAt) : ''}\t${c.rule}\n`);
  }
  const n = result.erased.length;
  const noun = n === 1 ? 'conversation' : 'conversations';
  if (dryRun) {
    process.stderr.write(`forget --dry-run: ${n} ${noun} would be erased from ${dbPath}; nothing was changed\n`);
  } else {
    const bytes = result.rewritten ? '; the file was rewritten, no byte of them is left in it' : '';
    process.stderr.write(`forget: erased ${n} ${noun} from ${dbPath}${bytes}\n`);
    if (result.recordingsDeleted > 0) process.stderr.write(`forget: deleted ${result.recordingsDeleted} recording file${result.recordingsDeleted === 1 ? '' : 's'} of them\n`);
  }
  if (result.alreadyErased.length > 0) process.stderr.write(`forget: already erased earlier: ${result.alreadyErased.join(', ')}\n`);
}

/** What `forget --out` rewrote: the partitions that held the erased conversations, or whole tables. */
function describeRewrite(summary: { partitionBy: string | null; erasedPartitions: string[]; tables: unknown[] }): string {
  if (summary.partitionBy === null || !/day|month/.test(summary.partitionBy)) return `${summary.tables.length} tables`;
  const n = summary.erasedPartitions.length;
  return `the ${n} partition${n === 1 ? '' : 's'} that held them (${summary.erasedPartitions.join(', ') || 'none left'})`;
}
