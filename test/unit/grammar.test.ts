// The conventions of docs/commands.md, held against every command's options as commander has
// them: one name per idea, one rule for a time range's ends, one meaning of --json.

import { Command, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerCommands } from '../../src/cli/commands/index.js';
import { DEPRECATED, JSON_HELP, SINCE_HELP, UNTIL_HELP } from '../../src/cli/grammar.js';

function program(): Command {
  const p = new Command('convoduck');
  registerCommands(p);
  return p;
}

const commands = program().commands;
const shown = (c: Command) => c.options.filter((o) => !o.hidden);

/** Words that name one idea: a command may use the first, never the others. */
const IDEAS: Record<string, string[]> = {
  '--since': ['--from', '--after', '--start', '--begin', '--start-time'],
  '--until': ['--to', '--before', '--end', '--end-time'],
  '--wait': ['--timeout', '--lock-timeout', '--lock-wait'],
  '--json': ['--output-json', '--as-json'],
  '--db': ['--database', '--db-file'],
  '--space': ['--spaces', '--only'],
  '--config': ['--config-file'],
  '--limit': ['--max', '--top', '--count'],
};

describe('the conventions of every command (docs/commands.md)', () => {
  it('each idea has one name: no command shows a second name for it', () => {
    const found: string[] = [];
    for (const c of commands) {
      for (const o of shown(c)) {
        for (const [name, others] of Object.entries(IDEAS)) {
          if (others.includes(o.long!)) found.push(`${c.name()} ${o.long} (use ${name})`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('a flag name means one thing: --days is not both a history length and a report window', () => {
    const byName = new Map<string, string[]>();
    for (const c of commands) for (const o of shown(c)) byName.set(o.long!, [...(byName.get(o.long!) ?? []), c.name()]);
    expect(byName.get('--days')).toEqual(['simulate']);
  });

  it('a time range is --since (inclusive) to --until (exclusive) on every command that takes one', () => {
    const ranged = commands.filter((c) => shown(c).some((o) => o.long === '--since' || o.long === '--until'));
    expect(ranged.map((c) => c.name()).sort()).toEqual(['alert', 'export', 'report', 'search', 'sync']);
    for (const c of ranged) {
      const since = c.options.find((o) => o.long === '--since')!;
      const until = c.options.find((o) => o.long === '--until');
      expect(since.description, `${c.name()} --since`).toMatch(/at or after|from this time on/);
      if (c.name() !== 'alert') expect(since.description, `${c.name()} --since`).toContain(SINCE_HELP);
      if (until) expect(until.description, `${c.name()} --until`).toContain(UNTIL_HELP);
    }
    // no other option describes an end that is included
    for (const c of commands) for (const o of shown(c)) expect(o.description, `${c.name()} ${o.long}`).not.toMatch(/at or before|inclusive\)/);
  });

  it('--json means one thing everywhere: what the run did, as one object; rows are chosen with --format', () => {
    const withJson = commands.filter((c) => shown(c).some((o) => o.long === '--json'));
    expect(withJson.map((c) => c.name()).sort()).toEqual(['alert', 'check', 'export', 'status', 'sync']);
    for (const c of withJson) expect(c.options.find((o) => o.long === '--json')!.description, c.name()).toBe(JSON_HELP);
    for (const c of commands) {
      for (const o of shown(c)) if (o.long !== '--json') expect(o.description, `${c.name()} ${o.long}`).not.toMatch(/same as --format json/);
    }
  });

  it('a hidden option is an old name kept for a release (or a refused secret: --api-key, --pagerduty-routing-key)', () => {
    for (const c of commands) {
      const kept = (DEPRECATED.get(c) ?? []).map((a) => a.old.split(' ')[0]);
      const hidden = c.options.filter((o) => o.hidden && o.long !== '--api-key' && o.long !== '--pagerduty-routing-key').map((o) => o.long);
      expect(hidden.sort(), c.name()).toEqual(kept.sort());
      // the new name of each old one exists on the command
      for (const a of DEPRECATED.get(c) ?? []) expect(shown(c).map((o) => o.long), `${c.name()} ${a.old}`).toContain(a.now);
    }
  });

  it('an option’s help names only options its command has (another command’s with its name, or `quoted`)', () => {
    const names = ['check', 'sync', 'report', 'alert', 'query', 'search', 'export', 'status', 'rebuild', 'forget', 'demo', 'simulate'];
    const wrong: string[] = [];
    for (const c of commands) {
      const own = new Set(c.options.flatMap((o: Option) => [o.long, o.long?.replace(/^--no-/, '--')]));
      for (const o of shown(c)) {
        for (const m of o.description.replace(/`[^`]*`/g, '').matchAll(/(?:(\w+) )?(--[a-z][a-z-]*)/g)) {
          if (!own.has(m[2]!) && !names.includes(m[1] ?? '')) wrong.push(`${c.name()} ${o.long}: ${m[0]}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('defaults print as they are typed (default: 30s), not as JSON strings', () => {
    for (const c of commands) expect(c.helpInformation(), c.name()).not.toMatch(/default: "/);
  });

  it('the reader commands and sync say why their --wait differs', () => {
    const sync = commands.find((c) => c.name() === 'sync')!.options.find((o) => o.long === '--wait')!;
    expect(sync.description).toMatch(/skip this run at once, exit 75: the sync already running fetches the same conversations/);
    for (const name of ['report', 'query', 'search', 'export', 'status', 'alert']) {
      const wait = commands.find((c) => c.name() === name)!.options.find((o) => o.long === '--wait')!;
      expect(wait.defaultValue, name).toBe('30s');
      expect(wait.description, name).toMatch(/one of its commits/);
    }
  });

  it('report keeps the settings of a single report in their own help group', () => {
    const help = commands.find((c) => c.name() === 'report')!.helpInformation();
    const group = help.slice(help.indexOf('Options of one report each:'));
    for (const flag of ['--early-seconds', '--min-sample', '--change-days', '--slow-seconds', '--loop-visits', '--last-turns', '--search']) {
      expect(group, flag).toContain(flag);
    }
  });
});
