// `convoduck alert`: evaluates the rules of a TOML file (src/alerts/) for the latest complete
// period and stores the values and alert states, or replays them over the history (--backtest).

import { Option, type Command } from 'commander';
import { parseTimeArg, parseDurationArg } from '../../shared/time.js';
import { resolveDbLayout } from '../config/db-path.js';
import { withDbDirOption } from '../db-dir/options.js';
import { spaceFilesIn } from '../db-dir/space-files.js';
import { EXIT, UsageError } from '../errors.js';
import { parseChoice } from '../parse.js';
import { JSON_HELP, READER_WAIT_HELP, withDeprecatedAlias } from '../grammar.js';
import { withMetricsFile } from '../alert/metrics-file.js';
import { customReportDir } from './report.js';

interface AlertFlags {
  db?: string;
  dbDir?: string;
  rules?: string;
  sqlDir?: string;
  json?: boolean;
  backtest?: boolean;
  since?: string;
  at?: string;
  check?: boolean;
  wait: string;
  webhookFormat: string;
  webhookTimeout: string;
  metricsFile?: string;
  externalUrl?: string;
  pagerdutyRoutingKey?: string;
}

export function registerAlert(program: Command): void {
  const command = program
    .command('alert')
    .summary('evaluate alert rules over the reports, store alert states, say what fires (--backtest: replay the history)')
    .description(
      'Evaluate every rule of a rules file (TOML, see docs/alerts.md) for its latest complete period (hour, day, week; UTC): ' +
        'run the rule’s report over that period, read its column per group, judge it (threshold, change, anomaly, freshness), ' +
        'and keep each value (alert_evaluations) and each alert’s state (alert_states) in the database. ' +
        'Prints one line per firing alert on stderr; --json prints the outcome on stdout.',
    )
    .option('--rules <file>', 'the rules file (TOML; docs/alerts.example.toml is a start)')
    .option('--db <file>', 'DuckDB file (default: $CONVODUCK_DB or ./convoduck.duckdb)')
    .option('--sql-dir <dir>', 'also read the reports (.sql files) in this folder (default: $CONVODUCK_SQL_DIR)')
    .option('--json', JSON_HELP)
    .option('--check', 'only check the rules file (reports, columns, kinds, keys) and exit')
    .option('--backtest', 'replay every rule over the stored history period by period and print when it would have fired and cleared (stores nothing)')
    .option('--since <time>', 'with --backtest: replay the periods from this time on (30d, 7d, an ISO date; default 30d)')
    .option('--at <time>', 'judge as of this time (on the server’s clock) instead of now: each rule’s latest period complete at it (a missed run played later; never before a period already judged)')
    .option('--wait <duration>', READER_WAIT_HELP, '30s')
    .option('--webhook-format <format>', 'notifications as alertmanager (webhook version 4), slack (Block Kit) or pagerduty (Events API v2)', 'alertmanager')
    .option('--webhook-timeout <duration>', 'how long to wait for the webhook to answer each notification', '10s')
    .option('--external-url <url>', 'the page or report showing the numbers (e.g. where report.html is served), linked from every notification (default: $CONVODUCK_EXTERNAL_URL)')
    .option('--metrics-file <file>', 'after the run, write the job’s health (alerts firing, the syncs) for Prometheus to this file')
    .addOption(new Option('--pagerduty-routing-key <key>').hideHelp());
  withDeprecatedAlias(command, { old: '--from <time>', now: '--since' });
  withDbDirOption(command)
    .addHelpText(
      'after',
      `
Examples:
  convoduck alert --rules alerts.toml --check
  convoduck alert --rules alerts.toml                      # after each sync, in the scheduled job
  convoduck alert --rules draft.toml --backtest --since 30d # tune a rule before turning it on
  convoduck alert --rules alerts.toml --at 2026-11-20T09:00Z # a missed run, played later
  convoduck alert --rules alerts.toml --db-dir /data/spaces  # every space file, each keeping its own alert states

Notifications: set CONVODUCK_ALERT_WEBHOOK_URL (or CONVODUCK_ALERT_WEBHOOK_URL_FILE, a file
holding it) and each alert is posted once when it starts firing and once when it resolves; a
webhook that is down or slow is tried again on the next run, and never fails the run.
--webhook-format pagerduty posts to PagerDuty's Events API (or to the webhook URL, when set) with
the routing key of CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE (a file holding it) or
CONVODUCK_PAGERDUTY_ROUTING_KEY; the key is never a flag.

--at judges the periods complete at that time (an hour rule at 09:20 judges 08:00-09:00). Alert
states only move forward: a time whose period is before one a rule already judged is refused
(exit 2, nothing changed); runs played in order judge what the runs on time would have.

With --db-dir each space file is judged on its own (its values and alert states stay in it) and
each line begins with its space; --json gives {dbDir, spaces: [{space, file, …}]}.

Exit codes: 0 nothing firing, ${EXIT.alertsFiring} at least one alert firing (in any space file), 1 a report failed or the
database stayed busy, 2 bad usage or a bad rules file (the message names the line).`,
    )
    .action(withMetricsFile(alertAction));
}

async function alertAction(flags: AlertFlags): Promise<void> {
  if (!flags.rules) throw new UsageError('alert needs --rules FILE — start from docs/alerts.example.toml');
  const lockTimeoutMs = parseDurationArg('--wait', flags.wait);
  const source = { file: flags.rules, customSqlDir: customReportDir(flags.sqlDir) };
  const now = new Date();
  if (flags.check) {
    const { readRules } = await import('../../alerts/run.js');
    const { rules } = readRules(source);
    process.stderr.write(`${flags.rules}: ${rules.length} ${rules.length === 1 ? 'rule' : 'rules'}, all valid\n`);
    if (flags.json) process.stdout.write(JSON.stringify({ rules: rules.map((r) => r.name) }, null, 2) + '\n');
    return;
  }
  const render = await import('../alert/render.js');
  const layout = resolveDbLayout(flags);
  // each space file keeps its own values and alert states: judged one after the other
  const targets = layout.kind === 'dir' ? spaceFilesIn(layout.dir).map((f) => ({ space: f.slug, file: f.path })) : [{ space: null, file: layout.path }];
  const prefix = (space: string | null, text: string) => (space === null ? text : text.replace(/^(?=.)/gm, `space ${space}: `));
  const printJson = (results: object[]) => {
    if (!flags.json) return;
    const doc = layout.kind === 'dir' ? { dbDir: layout.dir, spaces: results.map((r, i) => ({ space: targets[i]!.space, file: targets[i]!.file, ...r })) } : results[0];
    process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
  };
  if (flags.backtest) {
    if (flags.at !== undefined) throw new UsageError('--at is for a live run: --backtest replays every period from --since; drop one of them');
    const from = parseTimeArg('--since', flags.since ?? '30d', now);
    const { backtestAlerts } = await import('../../alerts/backtest.js');
    const results = [];
    for (const { space, file } of targets) {
      const result = await backtestAlerts({ ...source, dbPath: file, from, now, lockTimeoutMs });
      process.stderr.write(prefix(space, render.backtestLines(result)));
      results.push(result);
    }
    printJson(results);
    return;
  }
  if (flags.since !== undefined) throw new UsageError('--since is for --backtest: add --backtest, or drop --since');
  const at = flags.at === undefined ? undefined : parseTimeArg('--at', flags.at, now);
  if (at !== undefined && at.getTime() > now.getTime()) {
    throw new UsageError(`--at ${flags.at} is in the future — give a time up to now: its latest complete periods are judged`);
  }
  const [{ runAlerts, PeriodAlreadyJudgedError }, { WEBHOOK_FORMATS, webhookFromEnv }] = await Promise.all([import('../../alerts/run.js'), import('../../alerts/webhook.js')]);
  const format = parseChoice('--webhook-format', flags.webhookFormat, WEBHOOK_FORMATS);
  if (flags.pagerdutyRoutingKey !== undefined) {
    throw new UsageError('the routing key is never taken as a flag — set CONVODUCK_PAGERDUTY_ROUTING_KEY_FILE to a file holding it (or CONVODUCK_PAGERDUTY_ROUTING_KEY)');
  }
  const webhook = webhookFromEnv(process.env, format, parseDurationArg('--webhook-timeout', flags.webhookTimeout));
  const externalUrl = externalUrlOf(flags.externalUrl, process.env);
  const results = [];
  for (const { space, file } of targets) {
    const result = await runAlerts({ ...source, dbPath: file, now, at, lockTimeoutMs, webhook, externalUrl }).catch((err: unknown) => {
      if (!(err instanceof PeriodAlreadyJudgedError)) throw err;
      const { rule, judged, asked } = err;
      throw new UsageError(
        `${space === null ? '' : `space ${space}: `}--at ${flags.at ?? 'now'} asks for the ${rule.period} from ${asked.toISOString()}, but rule "${rule.name}" already judged the ${rule.period} from ${judged.toISOString()} — ` +
          'alert states only move forward: give a later --at, or look back with --backtest',
      );
    });
    for (const a of result.firing) process.stderr.write(prefix(space, render.firingLine(a)));
    for (const a of result.resolved) process.stderr.write(prefix(space, render.resolvedLine(a)));
    if (result.notifications?.failed) process.stderr.write(render.deliveryLine(result.notifications));
    process.stderr.write(prefix(space, render.runLine(result)));
    results.push(result);
  }
  printJson(results);
  if (results.some((r) => r.firing.length > 0)) process.exitCode = EXIT.alertsFiring;
}

/** `--external-url`, else CONVODUCK_EXTERNAL_URL (an empty value is unset): an http(s) address, not a secret. */
function externalUrlOf(flag: string | undefined, env: NodeJS.ProcessEnv): string | null {
  const [text, source] = flag !== undefined ? [flag, '--external-url'] : [env.CONVODUCK_EXTERNAL_URL || undefined, 'CONVODUCK_EXTERNAL_URL'];
  if (text === undefined) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} ${text} is not a URL — give the http(s) address of the page or report, e.g. https://reports.example.com/convoduck/report.html`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${source} ${text} is not http(s) — give the http(s) address of the page or report`);
  if (url.username || url.password) throw new UsageError(`${source} holds a user or password — it is sent in every notification: give an address without credentials`);
  return url.href;
}
