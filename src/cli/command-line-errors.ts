// commander's own parse errors (an unknown option, a missing value, too many arguments…) in the
// house form: one line `what was wrong — what to do`, which main.ts prints after `convoduck: `.

import type { Command, CommanderError } from 'commander';

/** The one line for a parse error of `command` (the root program or one of its subcommands). */
export function describeCommandLineError(err: CommanderError, command: Command): string {
  const { text, suggestion } = splitSuggestion(err.message);
  const path = commandPath(command);
  const help = `see ${path} --help`;
  const isRoot = !command.parent;
  switch (err.code) {
    case 'commander.unknownCommand': {
      if (suggestion) return `${text} — did you mean ${suggestion}? (${help})`;
      const names = command.commands.map((c) => c.name());
      return `${text} — the commands are ${names.join(', ')} (${help})`;
    }
    case 'commander.unknownOption': {
      const where = isRoot ? text : `${text} for ${command.name()}`;
      return suggestion ? `${where} — did you mean ${suggestion}? (${help})` : `${where} — ${help}`;
    }
    case 'commander.optionMissingArgument':
      return `${text.replace(/ argument missing$/, ' needs a value')} — ${help}`;
    default:
      return `${text} — ${help}`;
  }
}

/** commander's text without its `error: ` prefix, on one line, and its "(Did you mean …?)" apart. */
function splitSuggestion(message: string): { text: string; suggestion: string | null } {
  let text = message.replace(/^error:\s*/, '');
  let suggestion: string | null = null;
  const match = /\s*\(Did you mean (?:one of )?(.+?)\?\)\s*$/.exec(text);
  if (match) {
    suggestion = match[1]!;
    text = text.slice(0, match.index);
  }
  text = text
    .replace(/\s*\n\s*/g, ' ')
    // "… for 'sync'. Expected 0 arguments but got 1." reads as one clause
    .replace(/\.\s+([A-Z])/g, (_, first: string) => `: ${first.toLowerCase()}`)
    .replace(/\.\s*$/, '');
  return { text, suggestion };
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
