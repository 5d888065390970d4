// Every command's --help as a user reads it (80 columns, the built CLI): no sentence broken off in
// the middle of a line, as a description with its own line breaks gets once the help wraps it again.
import { describe, expect, it } from 'vitest';
import { PUBLIC_TABLES } from '../src/store/schema.js';
import { runCli } from './support/cli.js';

/** the width commander wraps help to when stdout is not a terminal */
const WIDTH = 80;

/**
 * Text lines (not indented: options and examples are) that stop mid-sentence although the next
 * line's first word would have fit on them: a line break the wrapping did not make.
 */
export function brokenLines(help: string): string[] {
  const lines = help.split('\n');
  const broken: string[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const [line, next] = [lines[i]!, lines[i + 1]!];
    if (line === '' || /^\s/.test(line) || /^\s/.test(next) || next === '') continue;
    const fits = line.length + 1 + next.split(' ')[0]!.length <= WIDTH;
    const ended = /[.:!?]$/.test(line);
    if (fits && !ended && /^[a-z(]/.test(next)) broken.push(`${line}⏎${next}`);
  }
  return broken;
}

describe('--help', () => {
  it('breaks no line in the middle of a sentence, for the program and every command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const commands = [...top.stdout.split('Commands:')[1]!.matchAll(/^ {2}([a-z-]+)\b/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(8);
    const found: Record<string, string[]> = {};
    for (const args of [[], ...commands.map((c) => [c])]) {
      const res = await runCli([...args, '--help']);
      expect(res.code, args.join(' ')).toBe(0);
      const broken = brokenLines(res.stdout);
      if (broken.length > 0) found[args.join(' ') || '(program)'] = broken;
    }
    expect(found).toEqual({});
  });
  it('export --help names every table an export writes', async () => {
    const res = await runCli(['export', '--help']);
    const text = res.stdout.replace(/\s+/g, ' ');
    const listed = /Write every public table \(([^)]*)\)/.exec(text)?.[1]?.split(', ');
    expect(listed).toEqual([...PUBLIC_TABLES]);
  });
  it('alert --help names its exit code and where the webhook comes from', async () => {
    const res = await runCli(['alert', '--help']);
    const text = res.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('Exit codes: 0 nothing firing, 10 at least one alert firing');
    expect(text).toContain('CONVODUCK_ALERT_WEBHOOK_URL (or CONVODUCK_ALERT_WEBHOOK_URL_FILE');
    for (const flag of ['--rules', '--backtest', '--since', '--at', '--check', '--json', '--metrics-file', '--webhook-format']) expect(text).toContain(flag);
  });
});
