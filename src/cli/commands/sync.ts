import type { Command } from 'commander';
import { configFilePath, resolveApiSettings, withApiOptions } from '../config/settings.js';
import type { SyncSummary } from '../../crawler/sync.js';
import { resolveDbLayout, resolveDbPath } from '../config/db-path.js';
import { CliError, EXIT } from '../errors.js';
import { preferSmallHeap } from '../../shared/heap.js';
import { recordingsDir, recordingsHook, recordingsRun } from '../sync/recordings.js';
import { describeClock, describeCountOff, describeListingGap, describeRestored, describeSummary, problemOf, runErrorOf, type SyncFlags } from '../sync/describe.js';
import { progressPrinter } from '../sync/progress.js';
import { failedOutcome, finishedOutcome, INTERRUPTED_EXIT, renderOutcome } from '../sync/outcome.js';
import { interruptible, parseRunFlags } from '../sync/flags.js';
import { resolveRedactAtRest, storedRedacted } from '../config/redaction.js';
import { withMetricsFile } from '../alert/metrics-file.js';
import { JSON_HELP, SINCE_HELP, UNTIL_HELP } from '../grammar.js';

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
    .option('--db-dir <dir>', 'one DuckDB file per space of the config, DIR/<slug>.duckdb, each under its own lock (default: $CONVODUCK_DB_DIR)')
    .option('--shard-count <n>', 'this job has N shards: crawl only the config’s spaces this shard owns (by slug, or a space’s shard = K)')
    .option('--shard-index <i>', 'this process’s shard, 0 … N−1 (default: $JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it)')
    .option('--details <mode>', 'all | none | outcomes to fetch first, e.g. failed,transferred', 'all')
    .option('--since <time>', `list only ${SINCE_HELP} (a date is midnight UTC)`)
    .option('--until <time>', `list only ${UNTIL_HELP} (a backfill: the watermark stays)`)
    .option('--full', 're-list everything instead of starting from the watermark')
    .option('--retry-set-aside', 'fetch again every detail set aside (after an upgrade, or once the API is fixed)')
    .option('--overlap <duration>', 'how far before the watermark an incremental run starts listing', '1h')
    .option('--max-rpm <n>', 'stay under this many requests per minute (leave room for other integrations)')
    .option('--recordings <dir>', 'download each conversation’s recording into DIR/space/YYYY-MM-DD/ beside the crawl (docs/recordings.md)')
    .option('--recordings-bandwidth <rate>', 'cap all downloads of recordings together, e.g. 5MB/s (default: no cap)')
    .option('--retain-days <n>', 'after the sync, erase conversations that started more than N days ago (as `forget` does)')
    .option('--erase-deleted', 'after the sync, erase conversations deleted at the source (as `forget` does)')
    .option('--redact-at-rest', 'redact each conversation before it is stored, for good (key: $CONVODUCK_REDACT_KEY[_FILE]; default: $CONVODUCK_REDACT_AT_REST)')
    .option('--no-redact-at-rest', 'do not, even when CONVODUCK_REDACT_AT_REST is set (refused for a space stored redacted)')
    .option('--wait <duration>', 'while another sync writes the database, wait up to this long for it to end (default: skip this run at once, exit 75: the sync already running fetches the same conversations, and a scheduler’s next run follows)')
    .option('--json', JSON_HELP)
    .option('--config <file>', 'crawl every [[space]] of this TOML file into the database (default: $CONVODUCK_CONFIG)')
    .option('--space <slug>', 'only this space of the config (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--metrics-file <file>', 'after the run, whatever its outcome, write the job’s health for Prometheus (textfile collector format) to this file')
    .addHelpText(
      'after',
      `
Examples:
  export CONVODUCK_BASE_URL=https://api.example.com/api/v1
  export CONVODUCK_API_KEY=np_...            # or: --api-key-file ~/.config/convoduck/key
  convoduck sync                             # first run: everything; then incremental
  convoduck sync --details failed,transferred --max-rpm 45
  convoduck sync --since 2026-10-01 --until 2026-11-01   # backfill October (--until is exclusive)
  convoduck sync --json > last-run.json      # for schedulers
  convoduck sync --config spaces.toml        # every [[space]] of the file, at once, into one database
  convoduck sync --config spaces.toml --space acme-prod
  convoduck sync --config spaces.toml --db-dir /data/spaces               # each space in its own file
  convoduck sync --config spaces.toml --db-dir /data/spaces --shard-count 3 --shard-index 0

A config file lists the spaces; keys stay outside it:
  [[space]]
  base_url = "https://api.example.com/api/v1"
  api_key_env = "ACME_PROD_KEY"              # or: api_key_file = "/etc/convoduck/acme-prod.key"
  slug = "acme-prod"                         # optional: checked before anything is stored
  max_rpm = 45                               # optional, as --max-rpm
  retain_days = 90                           # optional, as --retain-days
  erase_deleted = true                       # optional, as --erase-deleted
  redact_at_rest = true                      # optional, as --redact-at-rest
  recordings = "/srv/recordings"             # optional, as --recordings (false: never for this space)
  shard = 2                                  # optional, with --shard-count: this shard owns it

Data the API sends that convoduck did not expect never fails a run: a value whose meaning is
clear is coerced by a documented rule; a detail that cannot be stored as rows is set aside (its
raw body kept, the reason in raw_conversations.invalid_reason, fetched again once its list entry
changes or with --retry-set-aside); a conversation deleted at the source is marked deleted and
never asked for again. An agent, tool or connection body with a lone UTF-16 surrogate is stored
with U+FFFD in its place (as received in body_received), and the summary counts it. The api_drift
report says what the API sent that the schema does not know, and what was stored coerced.

--redact-at-rest replaces e-mail addresses, phone, card and IBAN numbers in each conversation
(raw body included) and session_ref by a keyed hash before anything is stored: irreversible
(rebuild cannot bring the text back). The key comes from CONVODUCK_REDACT_KEY or
CONVODUCK_REDACT_KEY_FILE. The database records it per space: a later sync of that space without
it, or with another key, is refused (exit 2). Turned on for a space stored in clear text, it first
redacts what is stored and rewrites the file, so that no clear byte remains.

Exit codes: 0 done, 1 finished with recorded errors (retried next run), 2 bad settings,
3 the API refused the key (401/403), 75 skipped: another sync was writing the database
(--wait 10m waits for it first), 130 interrupted (what was fetched is kept).
With several spaces: 3 when any key was refused or could not be read (that space is
skipped, the others run), 1 for any other recorded error. With --db-dir a space whose file
another sync holds is skipped (or waited for, --wait) while the others run: 75 only when every
space was skipped; a shard that owns no space exits 0.
A listing that does not add up (the server counts more conversations than it serves) exits 1
and keeps the watermark, so the next run lists that window again. When that run finds the same
shortfall and every conversation stored there served again, the server's count is off for good
(deleted or cached rows in it): what is served is trusted, with a warning line, and the run exits 0.`,
    )
    .action(withMetricsFile(async (flags: SyncFlags & { apiKey?: string }, metrics) => {
      const config = configFilePath(flags.config);
      const spread = resolveDbLayout({ db: flags.db, dbDir: flags.dbDir }).kind === 'dir' || flags.shardCount !== undefined || flags.shardIndex !== undefined;
      if (config !== null || (flags.space ?? []).length > 0 || spread) return (await import('../sync/sync-spaces.js')).syncSpacesCommand(flags, config, metrics);
      let apiKey: string | undefined;
      try {
        const { summary, dbPath, retention } = await runSync(flags, (key) => (apiKey = key));
        process.stderr.write(describeSummary(summary, dbPath) + '\n');
        const clock = describeClock(summary);
        if (clock) process.stderr.write(clock + '\n');
        if (summary.status !== 'interrupted') await (await import('../sync/retain-after-sync.js')).retainAfterSync(dbPath, [{ space: summary.space, ...retention }]);
        if (summary.listingGap) process.stderr.write(describeListingGap(summary.listingGap) + '\n');
        const countOff = describeCountOff(summary);
        if (countOff) process.stderr.write(countOff + '\n');
        const exitCode = summary.status === 'ok' ? EXIT.ok : summary.status === 'interrupted' ? INTERRUPTED_EXIT : EXIT.failed;
        if (flags.json) process.stdout.write(renderOutcome(finishedOutcome(summary, exitCode, problemOf(summary)), apiKey));
        process.exitCode = exitCode;
      } catch (err) {
        const known = runErrorOf(err);
        if (flags.json) {
          const message = known.message.split('\n')[0]!;
          const { countersOfFailedRun } = await import('../../crawler/sync.js');
          process.stdout.write(renderOutcome(failedOutcome(known.exitCode, message, countersOfFailedRun(err instanceof InterruptedError ? err.crawlerError : err)), apiKey));
        }
        known.outcomePrinted = flags.json === true;
        throw known;
      }
    }));
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
  const [redactAtRest] = resolveRedactAtRest(flags.redactAtRest, [undefined]);

  const progress = progressPrinter();
  const recordingsFolder = recordingsDir(flags.recordings, undefined);
  const recordings = recordingsRun(flags.recordingsBandwidth, [recordingsFolder], run.full === true, progress.say);
  let signal: AbortSignal | undefined;
  try {
    preferSmallHeap();
    const { sync } = await import('../../crawler/sync.js');
    const summary = await interruptible((aborted) => {
      signal = aborted;
      return sync({ ...settings, ...run, dbPath, redactAtRest, recordings: recordingsHook(recordingsFolder, recordings, aborted), onStoredRedacted: storedRedacted(dbPath), onRestored: (r) => progress.say(describeRestored(r)), signal: aborted, onProgress: progress.update });
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
