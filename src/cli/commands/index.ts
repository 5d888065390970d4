import type { Command } from 'commander';
import { registerAlert } from './alert.js';
import { registerCheck } from './check.js';
import { registerDemo } from './demo.js';
import { registerExport } from './export.js';
import { registerForget } from './forget.js';
import { registerQuery } from './query.js';
import { registerRebuild } from './rebuild.js';
import { registerReport } from './report.js';
import { registerSearch } from './search.js';
import { registerSimulate } from './simulate.js';
import { registerStatus } from './status.js';
import { registerSync } from './sync.js';
import { showDefaultsAsTyped } from '../grammar.js';

/**
 * Each command lives in its own file and adds itself here, in the order `--help` shows them. A
 * command file loads its work (DuckDB, the HTTP client) inside its action, so `--help` and a
 * mistyped flag answer without loading them.
 */
export function registerCommands(program: Command): void {
  registerCheck(program);
  registerSync(program);
  registerReport(program);
  registerAlert(program);
  registerQuery(program);
  registerSearch(program);
  registerExport(program);
  registerStatus(program);
  registerRebuild(program);
  registerForget(program);
  registerDemo(program);
  registerSimulate(program);
  showDefaultsAsTyped(program);
}
