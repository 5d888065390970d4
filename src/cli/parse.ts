// Pure parsers for flag values. Each throws a UsageError that says what was wrong and what to do.
// Times and durations: src/shared/time.ts (report filters use them too).

import { QUERY_FORMATS, type QueryFormat } from '../output/formats.js';
import { UsageError } from './errors.js';

export function parsePositiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n <= 0) {
    throw new UsageError(`${flag} ${JSON.stringify(value)} must be a whole number above 0`);
  }
  return n;
}

export function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} ${JSON.stringify(value)} is not one of: ${choices.join(', ')}`);
}

/** `--format` of a command that prints rows: the one given, else a table on a terminal and CSV in a pipe. */
export function parseRowsFormat(value: string | undefined, isTTY = process.stdout.isTTY === true): QueryFormat {
  if (value !== undefined) return parseChoice('--format', value, QUERY_FORMATS);
  return isTTY ? 'table' : 'csv';
}
