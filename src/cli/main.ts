#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { StoreError } from '../store/database.js';
import { CliError, EXIT } from './errors.js';
import { registerCommands } from './commands/index.js';

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
  .configureOutput({
    // One line per error, as for every other failure: "error: unknown command 'synk' (Did you mean sync?)"
    outputError: (text, write) => write(text.trim().replace(/\s*\n\s*/g, ' ') + '\n'),
  })
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.exitCode = exitCodeFor(err);
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and --version arrive here as "errors" with exit code 0.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof StoreError) {
    process.stderr.write(`convoduck: ${err.message}\n`);
    return EXIT.usage;
  }
  if (err instanceof CliError) {
    process.stderr.write(`convoduck: ${err.message}\n`);
    return err.exitCode;
  }
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`convoduck: unexpected error: ${message.split('\n')[0]}\n`);
  if (process.env.CONVODUCK_DEBUG) console.error(err);
  return EXIT.failed;
}
