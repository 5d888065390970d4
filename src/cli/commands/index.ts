import type { Command } from 'commander';
import { registerRebuild } from './rebuild.js';
import { registerSync } from './sync.js';

/** Each command lives in its own file and adds itself here. */
export function registerCommands(program: Command): void {
  registerSync(program);
  registerRebuild(program);
}
