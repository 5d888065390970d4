import { Command, Option } from 'commander';
import { AuthError } from '../../api/client.js';
import { SyncLockedError } from '../../crawler/lock.js';
import { parseDetailsMode } from '../../crawler/plan.js';
import { resolveApiSettings, SettingsError } from '../../crawler/settings.js';
import { sync, type SyncSummary } from '../../crawler/sync.js';
import { StoreError } from '../../store/database.js';
import { resolveDbPath } from '../config.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { parseDurationArg, parsePositiveInt, parseTimeArg } from '../parse.js';
import { preferSmallHeap } from '../heap.js';
import { progressPrinter, formatDuration } from '../progress.js';

interface SyncFlags {
  db?: string;
  baseUrl?: string;
  apiKeyFile?: string;
  details: string;
  since?: string;
  until?: string;
  full?: boolean;
  overlap: string;
  maxRpm?: string;
  json?: boolean;
}

export function registerSync(program: Command): void {
  program
    .command('sync')
    .summary('crawl the space’s conversations, agents and tools into DuckDB (incremental, resumable)')
    .description(
      'Crawl every conversation of the key’s space into the DuckDB file, within the key’s rate limit.\n' +
        'The first run lists everything; later runs list only what started since the last one (minus\n' +
        '--overlap) and fetch each finished conversation’s detail once in its life. Progress is committed\n' +
        'page by page, so a killed run resumes where it stopped.\n\n' +
        'Settings: CONVODUCK_BASE_URL (…/api/v1), CONVODUCK_API_KEY (or --api-key-file), CONVODUCK_DB.',
    )
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--base-url <url>', 'API address ending in /api/v1 (default: $CONVODUCK_BASE_URL)')
    .option('--api-key-file <file>', 'read the API key from this file instead of $CONVODUCK_API_KEY')
    .option('--details <mode>', 'all | none | outcomes to fetch first, e.g. failed,transferred', 'all')
    .option('--since <time>', 'list conversations started at or after this (ISO date/time, or 7d, 24h, yesterday)')
    .option('--until <time>', 'list conversations started at or before this (a backfill: the watermark stays)')
    .option('--full', 're-list everything instead of starting from the watermark')
    .option('--overlap <duration>', 'how far before the watermark an incremental run starts listing', '1h')
    .option('--max-rpm <n>', 'stay under this many requests per minute (leave room for other integrations)')
    .option('--json', 'print the run summary as JSON on stdout')
    .addOption(new Option('--api-key <key>').hideHelp())
    .addHelpText(
      'after',
      `
Examples:
  export CONVODUCK_BASE_URL=https://api.example.com/api/v1
  export CONVODUCK_API_KEY=np_...            # or: --api-key-file ~/.config/convoduck/key
  convoduck sync                             # first run: everything; then incremental
  convoduck sync --details failed,transferred --max-rpm 45
  convoduck sync --since 2026-10-01 --until 2026-10-31   # backfill a month
  convoduck sync --json > last-run.json      # for schedulers

Exit codes: 0 done, 1 finished with recorded errors (retried next run), 2 bad settings,
3 the API refused the key (401/403), 130 interrupted (what was fetched is kept).`,
    )
    .action(async (flags: SyncFlags & { apiKey?: string }) => {
      if (flags.apiKey !== undefined) {
        throw new UsageError('the API key is never taken as a flag: set CONVODUCK_API_KEY or use --api-key-file FILE');
      }
      const now = new Date();
      const details = parseDetailsMode(flags.details);
      if (!details) {
        throw new UsageError(`--details ${JSON.stringify(flags.details)} must be all, none, or outcomes such as failed,transferred`);
      }
      const since = flags.since ? parseTimeArg('--since', flags.since, now) : undefined;
      const until = flags.until ? parseTimeArg('--until', flags.until, now) : undefined;
      if (since && until && since > until) throw new UsageError('--since is after --until: swap them');
      if (flags.full && since) throw new UsageError('--full and --since contradict each other: use one');
      const overlapMs = parseDurationArg('--overlap', flags.overlap);
      const maxRpm = flags.maxRpm !== undefined ? parsePositiveInt('--max-rpm', flags.maxRpm) : undefined;
      let settings;
      try {
        settings = resolveApiSettings(flags);
      } catch (err) {
        if (err instanceof SettingsError) throw new UsageError(err.message);
        throw err;
      }
      const dbPath = resolveDbPath(flags.db);

      const controller = new AbortController();
      let interrupts = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        interrupts++;
        if (interrupts > 1) process.exit(130);
        process.stderr.write(`\nconvoduck: ${signal}: committing what was fetched, then stopping (again to quit at once)\n`);
        controller.abort();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const progress = progressPrinter();
      let summary: SyncSummary;
      try {
        preferSmallHeap();
        summary = await sync({
          ...settings,
          dbPath,
          details,
          since,
          until,
          full: flags.full,
          overlapMs,
          maxRpm,
          windowMs: testWindowMs(),
          signal: controller.signal,
          onProgress: progress.update,
        });
      } catch (err) {
        progress.finish();
        throw translate(err);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      progress.finish();
      process.stderr.write(describeSummary(summary, dbPath) + '\n');
      if (flags.json) process.stdout.write(JSON.stringify(summary) + '\n');
      process.exitCode = summary.status === 'ok' ? EXIT.ok : summary.status === 'interrupted' ? 130 : EXIT.failed;
    });
}

/** Tests shrink the API's one-minute window to keep crawls short; users never need this. */
function testWindowMs(): number | undefined {
  const value = process.env.CONVODUCK_RATE_WINDOW_MS;
  return value ? parsePositiveInt('CONVODUCK_RATE_WINDOW_MS', value) : undefined;
}

function translate(err: unknown): unknown {
  if (err instanceof AuthError) return new CliError(err.message, EXIT.auth);
  if (err instanceof SyncLockedError || err instanceof StoreError) return new CliError(err.message, EXIT.usage);
  if (err instanceof CliError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new CliError(`sync failed: ${message.split('\n')[0]} (what was fetched is kept; run sync again to resume)`, EXIT.failed);
}

function describeSummary(s: SyncSummary, dbPath: string): string {
  const lines = [
    `sync ${s.status === 'ok' ? 'done' : s.status} in ${formatDuration(s.seconds)} → ${dbPath}`,
    `  space ${s.space}, window ${s.windowFrom ?? 'beginning'} .. ${s.windowTo}`,
    `  ${s.conversationsListed} conversations listed, ${s.detailsFetched} details fetched, ${s.detailsPending} still pending`,
    `  ${s.requests} requests, ${s.throttled} throttled, ${s.retries} retried, ${s.errors} errors`,
  ];
  if (s.errors > 0) lines.push('  errors are in the sync_errors table (convoduck status); the next run retries them');
  return lines.join('\n');
}
