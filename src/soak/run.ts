// `npm run soak -- --kills 300`: every command that writes a database file, SIGKILLed at random
// moments against the built-in simulator, each file read whole after every run.
//
//   node dist/soak/run.js [--kills N] [--conversations N] [--seed N] [--only sync,forget,…] [--keep] [--json] [--write-docs]
//
// Prints the figures on stdout (progress on stderr); --json prints them as JSON instead;
// --write-docs rewrites the soak's table of docs/performance.md. Exit 1 when a file failed to open
// or read (its copy is kept, with the path printed), else 0.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as duckdbVersion } from '@duckdb/node-api';
import { runSoak, type SoakResult } from './soak.js';
import { soakDocTable, writeSoakDocs } from './docs.js';
import { WRITERS, type WriterName } from './writers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function count(args: string[], name: string, fallback: number): number {
  const value = flag(args, name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`convoduck soak: ${name} ${value} is not a whole number above 0 — pass e.g. ${name} ${fallback}\n`);
    process.exit(2);
  }
  return n;
}

function print(result: SoakResult): string {
  const lines = [
    `${result.kills} SIGKILLs in ${result.runs} runs, ${result.reads} whole-file reads, ${result.failures.length} failed, ${Math.round(result.seconds)} s`,
    '',
    soakDocTable(result),
  ];
  for (const f of result.failures) {
    lines.push('', `FAILED ${f.writer} run ${f.round} (${f.stage}, killed after ${f.killedAfterMs ?? '-'} ms) ${f.file}: ${f.error}`, `  kept at ${f.keptAt ?? '(copy failed)'}`);
  }
  for (const w of result.writers) for (const e of w.unexpectedExits) lines.push(`${w.writer}: unkilled run ended ${e}`);
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const only = flag(args, '--only')?.split(',') ?? [...WRITERS];
  const unknown = only.filter((w) => !(WRITERS as readonly string[]).includes(w));
  if (unknown.length > 0) {
    process.stderr.write(`convoduck soak: unknown writer ${unknown.join(', ')} — choose among ${WRITERS.join(', ')}\n`);
    process.exit(2);
  }
  const root = mkdtempSync(join(tmpdir(), 'convoduck-soak-'));
  const loadAtStart = loadavg()[0]!;
  const result = await runSoak({
    kills: count(args, '--kills', 300),
    conversations: count(args, '--conversations', 400),
    seed: count(args, '--seed', 45),
    root,
    cli: join(ROOT, 'dist/cli/main.js'),
    only: only as WriterName[],
    onProgress: (line) => process.stderr.write(line + '\n'),
  });
  process.stdout.write(args.includes('--json') ? JSON.stringify(result, null, 2) + '\n' : print(result));
  if (args.includes('--write-docs')) {
    const doc = join(ROOT, 'docs/performance.md');
    const machine = { cores: cpus().length, duckdb: duckdbVersion(), node: process.version, date: new Date().toISOString().slice(0, 10), loadAtStart, loadAtEnd: loadavg()[0]! };
    const command = ['npm run soak --', ...args.filter((a) => a !== '--json')].join(' ');
    writeFileSync(doc, writeSoakDocs(readFileSync(doc, 'utf8'), result, machine, command));
    process.stderr.write(`wrote the soak's table of ${doc}\n`);
  }
  if (result.failures.length === 0 && !args.includes('--keep')) rmSync(root, { recursive: true, force: true });
  else process.stderr.write(`files kept in ${root}\n`);
  process.exitCode = result.failures.length > 0 ? 1 : 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`convoduck soak: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
