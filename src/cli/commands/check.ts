import type { Command } from 'commander';
import type { CheckReport } from '../../check/probes.js';
import { MAX_CHECK_REQUESTS } from '../../check/budget.js';
import { configFilePath, resolveApiSettings, withApiOptions } from '../config/settings.js';
import { withDbDirOption, withShardOptions } from '../db-dir/options.js';
import type { CheckFlags } from '../check/render.js';
import { parsePositiveInt } from '../parse.js';
import { resolveDbPath } from '../config/db-path.js';
import { JSON_HELP } from '../grammar.js';

export function registerCheck(program: Command): void {
  const command = withApiOptions(program.command('check'))
    .summary(`find out what the server really does before scheduling sync (at most ${MAX_CHECK_REQUESTS} requests)`)
    .description(
      `Spend at most ${MAX_CHECK_REQUESTS} requests to see how the server behaves before a sync is scheduled: ` +
        'whether the key is accepted, the rate limit it reports, the page size it really serves, how it writes ' +
        'timestamps, whether the first and last pages of the conversation list add up to meta.total, and whether ' +
        'a conversation detail parses. A listing that ends short under a steady total is a server whose count is ' +
        'off: a warning saying what sync does with it (verifies it once, then trusts what is served), ok once ' +
        'the database sync writes records a run that trusted the same excess, a failure when a conversation it ' +
        'stores is no longer served. One finding a line (ok, warn, fail, skip) on stdout, then the verdict with ' +
        'an estimate of a first sync. Nothing is written anywhere; a 429 is reported, not waited out. ' +
        'Settings as for sync: CONVODUCK_BASE_URL (…/api/v1), CONVODUCK_API_KEY (or --api-key-file); ' +
        'or a config file (--config or CONVODUCK_CONFIG): every [[space]] of it is checked at once, each with its own key ' +
        'and budget, its findings under its slug.',
    )
    .option('--json', JSON_HELP)
    .option('--config <file>', 'check every [[space]] of this TOML file (default: $CONVODUCK_CONFIG)')
    .option('--space <slug>', 'only this space (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--max-rpm <n>', 'estimate the sync at this many requests per minute, as sync --max-rpm (a space’s max_rpm may be lower)')
    .option('--db <file>', 'the DuckDB file sync writes (default: $CONVODUCK_DB or ./convoduck.duckdb): read, never written, only when the listing ends short');
  withShardOptions(withDbDirOption(command))
    .addHelpText(
      'after',
      `
Examples:
  export CONVODUCK_BASE_URL=https://api.example.com/api/v1
  export CONVODUCK_API_KEY=np_...            # or: --api-key-file ~/.config/convoduck/key
  convoduck check                            # before: crontab -e … convoduck sync
  convoduck check --json | jq '.findings[] | select(.status != "ok")'
  convoduck check && convoduck sync          # sync only when the check passes
  convoduck check --config spaces.toml       # every [[space]] of the file, each under its slug
  convoduck check --config spaces.toml --space acme-prod --json | jq '.spaces[].outcome'
  convoduck check --config spaces.toml --db-dir /data/spaces --shard-count 3   # the spaces of shard $JOB_COMPLETION_INDEX

Exit codes: 0 a sync would work (warnings allowed, a count off for good among them), 1 a sync
would not work as things are (a finding failed, the server could not be reached, or it answered
429), 2 bad settings (or a --space the config does not have; with --db-dir or shards, a [[space]]
without a slug), 3 the API refused the key (401/403).
With several spaces: every space is judged, a key that cannot be read (unset variable, unreadable
file) listed like a refused one; exit the worst of them (3 when any key was refused or could not be
read, else 1 when any space fails), and the output ends with a tally of the spaces.`,
    )
    .action(async (flags: CheckFlags) => {
      const config = configFilePath(flags.config);
      const spread = flags.dbDir !== undefined || process.env.CONVODUCK_DB_DIR !== undefined || flags.shardCount !== undefined || flags.shardIndex !== undefined;
      if (config !== null || (flags.space ?? []).length > 0 || spread) return (await import('../check/check-spaces.js')).checkSpacesCommand(flags, config);
      const [{ checkServer }, { printOneSpace, stepPrinter }] = await Promise.all([import('../../check/probes.js'), import('../check/render.js')]);
      const settings = resolveApiSettings(flags);
      const progress = stepPrinter(process.stderr);
      let report: CheckReport;
      try {
        const maxRpm = flags.maxRpm !== undefined ? parsePositiveInt('--max-rpm', flags.maxRpm) : undefined;
        report = await checkServer({ ...settings, ...(maxRpm !== undefined ? { maxRpm } : {}), dbPath: resolveDbPath(flags.db), onStep: progress.step });
      } finally {
        progress.finish();
      }
      printOneSpace(report, flags.json === true);
    });
}
