import type { Command } from 'commander';
import { configFilePath, resolveApiSettings, withApiOptions } from '../settings.js';
import { countersOfFailedRun, sync, type ListingGapSummary, type SyncSummary } from '../../crawler/sync.js';
import { resolveDbPath } from '../config.js';
import { CliError, EXIT, toCliError } from '../errors.js';
import { preferSmallHeap } from '../../shared/heap.js';
import { progressPrinter, formatDuration } from '../progress.js';
import { failedOutcome, finishedOutcome, INTERRUPTED_EXIT, renderOutcome } from '../sync-outcome.js';
import { interruptible, parseRunFlags, type RunFlags } from '../sync-flags.js';
import { syncSpacesCommand } from '../spaces-sync.js';
import { retainAfterSync } from '../retain-after-sync.js';

export interface SyncFlags extends RunFlags {
  db?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  config?: string;
  space?: string[];
  json?: boolean;
}

export function registerSync(program: Command): void {
  withApiOptions(program.command('sync'))
    .summary('crawl the space’s conversations, agents and tools into DuckDB (incremental, resumable)')
    .description(
      'Crawl every conversation of the key’s space into the DuckDB file, within the key’s rate limit. ' +
        'The first run lists everything; later runs list only what started since the last one (minus ' +
        '--overlap) and fetch each finished conversation’s detail once in its life. Progress is committed ' +
        'page by page, so a killed run resumes where it stopped.\n\n' +
        'Settings: CONVODUCK_BASE_URL (…/api/v1), CONVODUCK_API_KEY (or --api-key-file), CONVODUCK_DB; ' +
        'for several spaces, a TOML config file (--config or CONVODUCK_CONFIG) with one [[space]] each.',
    )
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--details <mode>', 'all | none | outcomes to fetch first, e.g. failed,transferred', 'all')
    .option('--since <time>', 'list conversations started at or after this (ISO date/time, or 7d, 24h, yesterday)')
    .option('--until <time>', 'list conversations started at or before this (a backfill: the watermark stays)')
    .option('--full', 're-list everything instead of starting from the watermark')
    .option('--retry-set-aside', 'fetch again every detail set aside (after an upgrade, or once the API is fixed)')
    .option('--overlap <duration>', 'how far before the watermark an incremental run starts listing', '1h')
    .option('--max-rpm <n>', 'stay under this many requests per minute (leave room for other integrations)')
    .option('--retain-days <n>', 'after the sync, erase conversations that started more than N days ago (as `forget` does)')
    .option('--erase-deleted', 'after the sync, erase conversations deleted at the source (as `forget` does)')
    .option('--json', 'print the run summary as JSON on stdout')
    .option('--config <file>', 'crawl every [[space]] of this TOML file into the database (default: $CONVODUCK_CONFIG)')
    .option('--space <slug>', 'only this space of the config (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .addHelpText(
      'after',
      `
Examples:
  export CONVODUCK_BASE_URL=https://api.example.com/api/v1
  export CONVODUCK_API_KEY=np_...            # or: --api-key-file ~/.config/convoduck/key
  convoduck sync                             # first run: everything; then incremental
  convoduck sync --details failed,transferred --max-rpm 45
  convoduck sync --since 2026-10-01 --until 2026-11-01   # backfill October (--until is inclusive)
  convoduck sync --json > last-run.json      # for schedulers
  convoduck sync --config spaces.toml        # every [[space]] of the file, at once, into one database
  convoduck sync --config spaces.toml --space acme-prod

A config file lists the spaces; keys stay outside it:
  [[space]]
  base_url = "https://api.example.com/api/v1"
  api_key_env = "ACME_PROD_KEY"              # or: api_key_file = "/etc/convoduck/acme-prod.key"
  slug = "acme-prod"                         # optional: checked before anything is stored
  max_rpm = 45                               # optional, as --max-rpm
  retain_days = 90                           # optional, as --retain-days
  erase_deleted = true                       # optional, as --erase-deleted

Data the API sends that convoduck did not expect never fails a run: a value whose meaning is
clear is coerced by a documented rule; a detail that cannot be stored as rows is set aside (its
raw body kept, the reason in raw_conversations.invalid_reason, fetched again once its list entry
changes or with --retry-set-aside); a conversation deleted at the source is marked deleted and
never asked for again. The api_drift report says what the API sent that the schema does not know.

Exit codes: 0 done, 1 finished with recorded errors (retried next run), 2 bad settings,
3 the API refused the key (401/403), 130 interrupted (what was fetched is kept).
With several spaces: 3 when any key was refused or could not be read (that space is
skipped, the others run), 1 for any other recorded error.
A listing that does not add up (the server counts more conversations than it serves) exits 1
and keeps the watermark, so the next run lists that window again.`,
    )
    .action(async (flags: SyncFlags & { apiKey?: string }) => {
      const config = configFilePath(flags.config);
      if (config !== null || (flags.space ?? []).length > 0) return syncSpacesCommand(flags, config);
      let apiKey: string | undefined;
      try {
        const { summary, dbPath, retention } = await runSync(flags, (key) => (apiKey = key));
        process.stderr.write(describeSummary(summary, dbPath) + '\n');
        if (summary.status !== 'interrupted') await retainAfterSync(dbPath, [{ space: summary.space, ...retention }]);
        if (summary.listingGap) process.stderr.write(describeListingGap(summary.listingGap) + '\n');
        const exitCode = summary.status === 'ok' ? EXIT.ok : summary.status === 'interrupted' ? INTERRUPTED_EXIT : EXIT.failed;
        if (flags.json) process.stdout.write(renderOutcome(finishedOutcome(summary, exitCode, problemOf(summary)), apiKey));
        process.exitCode = exitCode;
      } catch (err) {
        const known = translate(err);
        if (flags.json) {
          const message = known.message.split('\n')[0]!;
          process.stdout.write(renderOutcome(failedOutcome(known.exitCode, message, countersOfFailedRun(err instanceof InterruptedError ? err.crawlerError : err)), apiKey));
        }
        known.outcomePrinted = flags.json === true;
        throw known;
      }
    });
}

/** Reads the flags and settings, then runs the crawl; Ctrl-C / SIGTERM abort it. */
async function runSync(
  flags: SyncFlags & { apiKey?: string },
  onKey: (apiKey: string) => void,
): Promise<{ summary: SyncSummary; dbPath: string; retention: ReturnType<typeof parseRunFlags>['retention'] }> {
  const run = parseRunFlags(flags, new Date());
  const settings = resolveApiSettings(flags);
  onKey(settings.apiKey);
  const dbPath = resolveDbPath(flags.db);

  const progress = progressPrinter();
  let signal: AbortSignal | undefined;
  try {
    preferSmallHeap();
    const summary = await interruptible((aborted) => {
      signal = aborted;
      return sync({ ...settings, ...run, dbPath, signal: aborted, onProgress: progress.update });
    });
    progress.finish();
    return { summary, dbPath, retention: run.retention };
  } catch (err) {
    progress.finish();
    // Ctrl-C ended a call that was waiting (for the rate limit, say): an interruption, not a failure.
    if (signal?.aborted) throw new InterruptedError(err);
    throw err;
  }
}

/** A run the user stopped; crawlerError carries the run's counters (countersOfFailedRun). */
export class InterruptedError extends CliError {
  constructor(readonly crawlerError: unknown) {
    super('sync interrupted: what was fetched is kept; run sync again to resume', INTERRUPTED_EXIT);
    this.name = 'InterruptedError';
  }
}

/** The reason a finished run was not ok, as its one line; null when it was. */
export function problemOf(summary: SyncSummary): string | null {
  if (summary.status === 'ok') return null;
  if (summary.status === 'interrupted') return 'sync interrupted: what was fetched is kept; run sync again to resume';
  if (summary.listingGap) return describeListingGap(summary.listingGap).replace(/^convoduck: /, '');
  return `${summary.errors} errors recorded in sync_errors — the next run retries them`;
}

/** convoduck's own errors as everywhere; anything else ended the run, and what was fetched is kept. */
export function translate(err: unknown): CliError {
  const known = toCliError(err);
  if (known) return known;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(`sync failed: ${message.split('\n')[0]} (what was fetched is kept; run sync again to resume)`, EXIT.failed);
}

/** The one line that says which window is short, by how many, and what happens next. */
export function describeListingGap(gap: ListingGapSummary): string {
  const next = gap.nextRunRelists
    ? 'the watermark stays; the next run lists this window again'
    : 'a bounded backfill moves no watermark: run it again to list this window';
  return `convoduck: ${gap.message} — ${next}`;
}

/** What the run did with data it did not expect, in one line (null when nothing). */
export function describeUnexpectedData(s: Pick<SyncSummary, 'detailsCoerced' | 'detailsSetAside' | 'conversationsDeleted'>): string | null {
  const parts: string[] = [];
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  if (s.detailsCoerced > 0) parts.push(`${n(s.detailsCoerced, 'detail', 'details')} stored with values coerced`);
  if (s.detailsSetAside > 0) parts.push(`${n(s.detailsSetAside, 'detail', 'details')} set aside (raw body kept; see the api_drift report)`);
  if (s.conversationsDeleted > 0) parts.push(`${n(s.conversationsDeleted, 'conversation', 'conversations')} deleted at the source`);
  return parts.length === 0 ? null : parts.join(', ');
}

export function describeSummary(s: SyncSummary, dbPath: string): string {
  const lines = [
    `sync ${s.status === 'ok' ? 'done' : s.status} in ${formatDuration(s.seconds)} → ${dbPath}`,
    `  space ${s.space}, window ${s.windowFrom ?? 'beginning'} .. ${s.windowTo}`,
    `  ${s.conversationsListed} conversations listed, ${s.detailsFetched} details fetched, ${s.detailsPending} still pending`,
    `  ${s.requests} requests, ${s.throttled} throttled, ${s.retries} retried, ${s.errors} errors`,
  ];
  const unexpected = describeUnexpectedData(s);
  if (unexpected) lines.push(`  ${unexpected}`);
  if (s.errors > 0) lines.push('  errors are in the sync_errors table (convoduck status); the next run retries them');
  return lines.join('\n');
}
