// The soak's figures as the table of docs/performance.md between `<!-- soak:kills -->` and
// `<!-- /soak:kills -->`. Pure: text in, text out (run.ts reads and writes the file).

import type { SoakResult } from './soak.js';

const BEGIN = '<!-- soak:kills -->';
const END = '<!-- /soak:kills -->';

/** One row per writer: runs, kills, finished runs, median unkilled run, whole-file reads, failed reads. */
export function soakDocTable(result: SoakResult): string {
  const rows = result.writers.map((w) => [w.writer, String(w.runs), String(w.kills), String(w.finished), `${(w.medianRunMs / 1000).toFixed(1)} s`, String(w.reads), String(w.failures)]);
  const sum = (k: 'runs' | 'kills' | 'finished' | 'reads' | 'failures'): string => String(result.writers.reduce((n, w) => n + w[k], 0));
  rows.push(['**all**', sum('runs'), sum('kills'), sum('finished'), '', sum('reads'), sum('failures')]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    line(['writer', 'runs', 'SIGKILLed', 'finished', 'median unkilled run', 'files read whole', 'failed to open or read']),
    `|${rows[0]!.map(() => '---').join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

/** The machine and moment a soak ran on, as its table's last line names them. */
export interface SoakMachine {
  cores: number;
  duckdb: string;
  node: string;
  date: string;
  loadAtStart: number;
  loadAtEnd: number;
}

/** `doc` with the soak's block replaced by the table of `result` and the machine it ran on. */
export function writeSoakDocs(doc: string, result: SoakResult, machine: SoakMachine, command: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/performance.md has no ${BEGIN} … ${END} block to write`);
  const block = [
    BEGIN,
    soakDocTable(result),
    '',
    `${result.kills} SIGKILLs in ${result.runs} runs and ${result.reads} whole-file reads: ${result.failures.length} files failed to open or read.`,
    '',
    `_Measured by \`${command}\` on ${machine.date}: ${machine.cores} cores, Node ${machine.node}, DuckDB ${machine.duckdb}; ` +
      `${Math.round(result.seconds / 60)} min, load average ${machine.loadAtStart.toFixed(2)} at the start and ${machine.loadAtEnd.toFixed(2)} at the end._`,
    END,
  ].join('\n');
  return doc.slice(0, start) + block + doc.slice(end + END.length);
}
