// The folder a command writes its files into (report --out, export --out).

import { mkdirSync } from 'node:fs';
import { InvalidInputError } from './errors.js';

/** Creates `dir` and its parents, or says in one line why it cannot: bad input (exit 2), not a crash. */
export function createOutputDir(dir: string, mode?: number): void {
  try {
    mkdirSync(dir, { recursive: true, ...(mode === undefined ? {} : { mode }) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new InvalidInputError(`cannot create the output folder ${dir} (${code}): pass --out with a folder you can write`);
  }
}
