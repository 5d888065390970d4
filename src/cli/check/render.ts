// How `check` shows what it found: one finding a line (coloured on a terminal), the verdict, or
// one JSON object; and which request is under way while it runs. One space's and many spaces' alike.

import type { CheckReport } from '../../check/probes.js';
import type { Finding, FindingStatus } from '../../check/findings.js';
import { CliError, EXIT } from '../errors.js';

export interface CheckFlags {
  baseUrl?: string;
  apiKeyFile?: string;
  json?: boolean;
  apiKey?: string;
  config?: string;
  space?: string[];
  maxRpm?: string;
  db?: string;
  dbDir?: string;
  shardCount?: string;
  shardIndex?: string;
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
