// The one grammar of every command's flags (docs/commands.md, "Conventions"): the shared option
// texts, the old names kept for a release with a notice, and defaults shown as typed.

import { Option, type Command } from 'commander';

/** `--since`: the start of a time range, included. */
export const SINCE_HELP = 'conversations started at or after this: an ISO date or date-time, or 7d, 24h, yesterday (7d = 7 days before now)';
/** `--until`: the end of a time range, excluded, so that back-to-back ranges never overlap. */
export const UNTIL_HELP = 'conversations started before this (exclusive); same forms as --since';
/** `--json`: one JSON object saying what the run did, on stdout (rows are chosen with --format). */
export const JSON_HELP = 'print what the run did as one JSON object on stdout (for scripts and schedulers)';
/** A reader's `--wait`: a sync commits batch by batch, so a reader gets in between its commits. */
export const READER_WAIT_HELP = 'while a sync holds the file, wait up to this long for one of its commits to end';

/** One old flag name kept for a release: it sets the new one and says so once on stderr. */
export interface DeprecatedAlias {
  /** e.g. `--from <time>` (a flag without a value: `--json`) */
  old: string;
  /** the flag to use instead, e.g. `--since` */
  now: string;
  /** the option value the new flag takes (default: the old flag's value) */
  value?: (old: string | boolean) => { attribute: string; value: string | boolean };
}

/** The old names each command still accepts, by command: what the conventions test allows hidden. */
export const DEPRECATED = new WeakMap<Command, DeprecatedAlias[]>();

/** Adds `alias.old` as a hidden flag of `command` that sets `alias.now`, with a one-line notice. */
export function withDeprecatedAlias(command: Command, alias: DeprecatedAlias): Command {
  const option = new Option(alias.old).hideHelp();
  command.addOption(option);
  DEPRECATED.set(command, [...(DEPRECATED.get(command) ?? []), alias]);
  const target = alias.now.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
  command.on(`option:${option.name()}`, (value: string | boolean | undefined) => {
    const given = value ?? true;
    const set = alias.value ? alias.value(given) : { attribute: target, value: given };
    process.stderr.write(`convoduck: ${option.long} is deprecated and goes in the next release — use ${alias.now === '--format' ? '--format json' : alias.now} (same meaning)\n`);
    command.setOptionValueWithSource(set.attribute, set.value, 'cli');
  });
  return command;
}

/**
 * Defaults as they would be typed (`default: 8080`, `default: 30s`), not as JSON strings: every
 * flag value arrives as text, so a default is given as text too.
 */
export function showDefaultsAsTyped(command: Command): void {
  for (const option of command.options) {
    if (typeof option.defaultValue === 'string' && option.defaultValueDescription === undefined) {
      option.defaultValueDescription = option.defaultValue;
    }
  }
  for (const sub of command.commands) showDefaultsAsTyped(sub);
}
