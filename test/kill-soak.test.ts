// The kill soak, short: the writers whose kills are riskiest (a sync's open/commit/checkpoint/close
// per batch, forget's rewrite and rename of the file, the --redact-at-rest conversion, a schema
// migration that copies the largest tables) each SIGKILLed at a random moment against the
// simulator, and every file read whole (every column of every table) after each run. None may
// fail to open or read. `npm run soak -- --kills 300` covers every writer (docs/performance.md).
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runSoak } from '../src/soak/soak.js';
import type { WriterName } from '../src/soak/writers.js';
import { CLI } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('kill-soak', { rateLimit: 100_000 });

describe('kill soak', () => {
  it('leaves every file of every writer readable in full after SIGKILLs at random moments', async () => {
    const root = fileDir();
    const only: WriterName[] = ['sync', 'forget', 'redact-at-rest', 'migration'];
    const result = await runSoak({ kills: only.length, conversations: 40, seed: 4545, root, cli: CLI, only });

    expect(result.failures, JSON.stringify(result.failures, null, 2)).toEqual([]);
    expect(result.writers.map((w) => w.writer)).toEqual(only);
    for (const w of result.writers) {
      expect(w.kills, w.writer).toBeGreaterThanOrEqual(1);
      // after each run (killed or not) every file it writes was read whole
      expect(w.reads, w.writer).toBeGreaterThanOrEqual(w.runs);
      expect(w.unexpectedExits, w.writer).toEqual([]);
    }
    // a rewrite killed before its rename leaves its fresh file: the next rewrite removes it
    const leftovers = new Set(readdirSync(root).flatMap((f) => /^forget\.duckdb\.rewrite-(\d+)/.exec(f)?.[1] ?? []));
    expect(leftovers.size, 'rewrites whose files (and WALs) are left').toBeLessThanOrEqual(1);
  });

});
