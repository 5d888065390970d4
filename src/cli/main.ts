#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { describeCommandLineError } from './command-line-errors.js';
import { CliError, EXIT, toCliError, UsageError } from './errors.js';
import { failedOutcome, renderOutcome } from './sync/outcome.js';
import { registerCommands } from './commands/index.js';
import { upgradeNotice } from '../store/upgrade-notice.js';

// `convoduck … | head` closes the pipe early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const program = new Command('convoduck')
  .description(
    'Export every conversation of an Agent Management API space into DuckDB and turn it into SQL reports.',
  )
  .version(packageVersion())
  .showSuggestionAfterError()
  // commander's parse errors are printed below, in the house's one-line form (command-line-errors.ts)
  .configureOutput({ outputError: () => undefined });

registerCommands(program);
upgradeNotice.listener = (path, from, to) =>
  process.stderr.write(`convoduck: upgrading ${path} from schema ${from} to ${to}, once (a large database takes a minute)\n`);
/** The command that was running (or being parsed) when an error came: it decides whether `--json` applies. */
let activeCommand: Command = program;
program.hook('preAction', (_, actionCommand) => {
  activeCommand = actionCommand;
});
for (const command of [program, ...program.commands]) {
  command.exitOverride((err) => {
    // --help, --version (exit 0) and help shown for a missing command stay commander's
    if (err.exitCode === 0 || err.code === 'commander.help') throw err;
    activeCommand = command;
    throw new UsageError(describeCommandLineError(err, command));
  });
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = exitCodeFor(err);
  const printed = err instanceof CliError && err.outcomePrinted;
  if (!printed && asksForJson(activeCommand, process.argv.slice(2)) && err instanceof Error && !(err instanceof CommanderError)) {
    // a scheduler that asked for JSON always gets one object to parse, whatever went wrong
    process.stdout.write(renderOutcome(failedOutcome(process.exitCode, firstLine(err, process.exitCode), undefined), undefined));
  }
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Whether `--json` was given to a command that has it (before any `--`, after which words are values). */
function asksForJson(command: Command, args: string[]): boolean {
  const end = args.indexOf('--');
  const words = end === -1 ? args : args.slice(0, end);
  return command.options.some((o) => o.long === '--json') && words.includes('--json');
}

function firstLine(err: Error, exitCode: number): string {
  const known = toCliError(err);
  if (known) return known.message.split('\n')[0]!;
  return exitCode === EXIT.failed ? `unexpected error: ${err.message.split('\n')[0]}` : err.message.split('\n')[0]!;
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version arrive here as "errors" with exit code 0.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  const known = toCliError(err);
  if (known) {
    process.stderr.write(`convoduck: ${known.message}\n`);
    return known.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`convoduck: unexpected error: ${message.split('\n')[0]}\n`);
  if (process.env.CONVODUCK_DEBUG) console.error(err);
  return EXIT.failed;
}
