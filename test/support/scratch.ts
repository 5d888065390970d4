// Simulators and temporary folders that a test file starts, all stopped and removed for it:
// `const { simulator, tempDb, tempDir, fileDir } = scratch('sync')` at the top of the file.
// - simulator(), tempDb(), tempDir(): for one test, stopped or removed after each test;
// - fileDir(): the file's own folder, kept for all its tests and removed after the last one;
//   fileDir('label') is a fresh folder inside it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

export interface Scratch {
  simulator: (options?: SimulatorOptions) => Promise<Simulator>;
  /** a database path in a folder of its own, removed after the test */
  tempDb: () => string;
  /** an empty folder, removed after the test */
  tempDir: () => string;
  /** the file's folder (with a label: a fresh folder inside it), removed after the file's last test */
  fileDir: (label?: string) => string;
}

export function scratch(name: string, defaults: SimulatorOptions = {}): Scratch {
  const running: Simulator[] = [];
  const dirs: string[] = [];
  let fileRoot: string | undefined;
  const fresh = (parent: string, prefix: string): string => mkdtempSync(join(parent, prefix));
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.close()));
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  afterAll(() => {
    if (fileRoot) rmSync(fileRoot, { recursive: true, force: true });
    fileRoot = undefined;
  });
  const tempDir = (): string => {
    const dir = fresh(tmpdir(), `convoduck-${name}-`);
    dirs.push(dir);
    return dir;
  };
  return {
    async simulator(options = {}) {
      const sim = await startSimulator({ ...defaults, ...options });
      running.push(sim);
      return sim;
    },
    tempDb: () => join(tempDir(), 'test.duckdb'),
    tempDir,
    fileDir(label) {
      fileRoot ??= fresh(tmpdir(), `convoduck-${name}-`);
      return label === undefined ? fileRoot : fresh(fileRoot, `${label}-`);
    },
  };
}
