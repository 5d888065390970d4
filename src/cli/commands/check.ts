import type { Command } from 'commander';
import { checkServer, MAX_CHECK_REQUESTS, type CheckReport } from '../../crawler/check.js';
import type { Finding, FindingStatus } from '../../crawler/check-findings.js';
import { configFilePath, resolveApiSettings, withApiOptions } from '../settings.js';
import { CliError, EXIT } from '../errors.js';
import { checkSpacesCommand } from '../check-spaces.js';
import { parsePositiveInt } from '../parse.js';

export interface CheckFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  json?: boolean;
  apiKey?: string;
  config?: string;
  space?: string[];
  maxRpm?: string;
}

export function registerCheck(program: Command): void {
  withApiOptions(program.command('check'))
    .summary(`find out what the server really does before scheduling sync (at most ${MAX_CHECK_REQUESTS} requests)`)
    .description(
      `Spend at most ${MAX_CHECK_REQUESTS} requests to see how the server behaves before a sync is scheduled: ` +
        'whether the key is accepted, the rate limit it reports, the page size it really serves, how it writes ' +
        'timestamps, whether the first and last pages of the conversation list add up to meta.total, and whether ' +
        'a conversation detail parses. One finding a line (ok, warn, fail, skip) on stdout, then the verdict with ' +
        'an estimate of a first sync. Nothing is written anywhere; a 429 is reported, not waited out. ' +
        'Settings as for sync: CONVODUCK_BASE_URL (…/api/v1), CONVODUCK_API_KEY (or --api-key-file); ' +
        'or a config file (--config or CONVODUCK_CONFIG): every [[space]] of it is checked at once, each with its own key ' +
        'and budget, its findings under its slug.',
    )
    .option('--json', 'print every finding and the measured values as one JSON object on stdout')
    .option('--config <file>', 'check every [[space]] of this TOML file (default: $CONVODUCK_CONFIG)')
    .option('--space <slug>', 'only this space (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--max-rpm <n>', 'estimate the sync at this many requests per minute, as sync --max-rpm (a space’s max_rpm may be lower)')
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

Exit codes: 0 a sync would work (warnings allowed), 1 a sync would not work as things are
(a finding failed, the server could not be reached, or it answered 429), 2 bad settings
(or a --space the config does not have), 3 the API refused the key (401/403).
With several spaces: the worst of them (3 when any key was refused, else 1 when any space fails).`,
    )
    .action(async (flags: CheckFlags) => {
      const config = configFilePath(flags.config);
      if (config !== null || (flags.space ?? []).length > 0) return checkSpacesCommand(flags, config);
      const settings = resolveApiSettings(flags);
      const progress = stepPrinter(process.stderr);
      let report: CheckReport;
      try {
        const maxRpm = flags.maxRpm !== undefined ? parsePositiveInt('--max-rpm', flags.maxRpm) : undefined;
        report = await checkServer({ ...settings, ...(maxRpm !== undefined ? { maxRpm } : {}), onStep: progress.step });
      } finally {
        progress.finish();
      }
      printOneSpace(report, flags.json === true);
    });
}

/** One space's report as it always reads: its findings and verdict, or with --json one object; exit 0, 1 or 3. */
export function printOneSpace(report: CheckReport, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(toJson(report), null, 2) + '\n');
  } else {
    const color = useColor(process.stdout);
    // A refusal is the one line on stderr (exit 3), not a finding line.
    const shown = report.findings.filter((f) => f.values.refused !== true);
    const lines = shown.map((f) => renderFinding(f, color));
    if (report.outcome !== 'refused') lines.push(report.verdict);
    if (lines.length > 0) process.stdout.write(lines.join('\n') + '\n');
  }
  if (report.outcome === 'refused') {
    const refused = new CliError(report.refusal!, EXIT.auth);
    refused.outcomePrinted = json;
    throw refused;
  }
  process.exitCode = report.outcome === 'works' ? EXIT.ok : EXIT.failed;
}

/** The machine-readable report: each finding's measured values sit beside its status, name and message. */
export function toJson(report: CheckReport): Record<string, unknown> {
  return {
    syncWouldWork: report.outcome === 'works',
    outcome: report.outcome,
    space: report.space,
    requests: report.requests,
    findings: report.findings.map((f) => ({ status: f.status, name: f.name, message: f.message, ...f.values })),
    estimate: report.estimate,
    verdict: report.verdict,
  };
}

const COLORS: Record<FindingStatus, string> = { ok: '32', warn: '33', fail: '31', skip: '2' };

export function renderFinding(f: Finding, color: boolean): string {
  const word = f.status.padEnd(5);
  return `${color ? `\x1b[${COLORS[f.status]}m${word}\x1b[0m` : word} ${f.message}`;
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function useColor(stream: NodeJS.WriteStream): boolean {
  const noColor = process.env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === '');
}

/** Which request is under way, on a terminal only (logs and pipes get the findings and nothing else). */
export function stepPrinter(stream: NodeJS.WriteStream): { step: (what: string) => void; finish: () => void } {
  let drawn = false;
  return {
    step(what) {
      if (stream.isTTY !== true) return;
      stream.write(`\r\x1b[2Kchecking: ${what}`);
      drawn = true;
    },
    finish() {
      if (drawn) stream.write('\r\x1b[2K');
    },
  };
}
