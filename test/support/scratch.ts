// Simulators and temporary database files that a test file starts, all stopped and removed after
// each test: `const { simulator, tempDb } = scratch('sync')` at the top of the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

export function scratch(name: string, defaults: SimulatorOptions = {}): {
  simulator: (options?: SimulatorOptions) => Promise<Simulator>;
  tempDb: () => string;
} {
  const running: Simulator[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    async simulator(options = {}) {
      const sim = await startSimulator({ ...defaults, ...options });
      running.push(sim);
      return sim;
    },
    tempDb() {
      const dir = mkdtempSync(join(tmpdir(), `convoduck-${name}-`));
      dirs.push(dir);
      return join(dir, 'test.duckdb');
    },
  };
}
