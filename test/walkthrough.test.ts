// `simulate --help`'s walkthrough, run as written: its simulate command (on a free port instead of
// 8080, which another program may hold), the export lines the simulator prints, and `convoduck
// sync` in an empty folder. It says "about a minute"; it must be over well within two.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { tempDir } = scratch('walkthrough');

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** The walkthrough's commands: the simulate line, and what the other shell runs after the exports. */
function walkthrough(help: string): { simulate: string[]; then: string[][] } {
  const lines = help.split('\n');
  const start = lines.findIndex((l) => l.startsWith('Walkthrough'));
  expect(start, help).toBeGreaterThanOrEqual(0);
  const commands: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.startsWith('More examples')) break;
    const command = line.replace(/#.*$/, '').trim();
    if (command.startsWith('convoduck ')) commands.push(command.split(/\s+/).slice(1));
  }
  const [simulate, ...then] = commands;
  expect(simulate?.[0]).toBe('simulate');
  return { simulate: simulate!, then };
}

describe('simulate --help’s walkthrough', () => {
  it('runs as written and is over within two minutes', async () => {
    const help = await runCli(['simulate', '--help']);
    expect(help.code).toBe(0);
    const { simulate, then } = walkthrough(help.stdout);
    expect(then).toEqual([['sync']]);

    const began = Date.now();
    const server = startCli([...simulate, '--port', '0']);
    cleanups.push(() => server.child.kill('SIGTERM'));
    // the two export lines, as the user pastes them
    const env: Record<string, string> = {};
    await new Promise<void>((resolve, reject) => {
      let out = '';
      server.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        for (const m of out.matchAll(/^export (CONVODUCK_\w+)=(\S+)$/gm)) env[m[1]!] = m[2]!;
        if (env.CONVODUCK_BASE_URL && env.CONVODUCK_API_KEY) resolve();
      });
      server.child.on('exit', () => reject(new Error('simulate exited before printing its settings')));
    });
    expect(env.CONVODUCK_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);

    const cwd = tempDir();
    for (const args of then) {
      const res = await runCli(args, env, cwd);
      expect(res.code, res.stderr).toBe(0);
    }
    const seconds = (Date.now() - began) / 1000;
    expect(seconds).toBeLessThan(120);
    server.child.kill('SIGTERM');
  }, 300_000);
});
