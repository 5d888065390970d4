// The kill soak's table in docs/performance.md: written between its markers, the prose around it kept.
import { describe, expect, it } from 'vitest';
import { writeSoakDocs } from '../../src/soak/docs.js';
import type { SoakResult } from '../../src/soak/soak.js';

const result: SoakResult = {
  kills: 3,
  runs: 5,
  reads: 6,
  failures: [],
  seconds: 125,
  writers: [
    { writer: 'sync', runs: 3, kills: 2, finished: 1, medianRunMs: 2_400, reads: 4, failures: 0, unexpectedExits: [] },
    { writer: 'forget', runs: 2, kills: 1, finished: 1, medianRunMs: 900, reads: 2, failures: 0, unexpectedExits: [] },
  ],
};
const machine = { cores: 2, duckdb: 'v1.5.5', node: 'v20.20.2', date: '2026-11-29', loadAtStart: 1, loadAtEnd: 2.5 };

describe('writeSoakDocs', () => {
  it('replaces only its block, with a row per writer and the totals', () => {
    const doc = 'before\n<!-- soak:kills -->\nold table\n<!-- /soak:kills -->\nafter\n';
    const out = writeSoakDocs(doc, result, machine, 'npm run soak -- --kills 3');
    expect(out.startsWith('before\n<!-- soak:kills -->\n| writer |')).toBe(true);
    expect(out.endsWith('<!-- /soak:kills -->\nafter\n')).toBe(true);
    expect(out).not.toContain('old table');
    expect(out).toContain('| sync | 3 | 2 | 1 | 2.4 s | 4 | 0 |');
    expect(out).toContain('| **all** | 5 | 3 | 2 |  | 6 | 0 |');
    expect(out).toContain('3 SIGKILLs in 5 runs and 6 whole-file reads: 0 files failed to open or read.');
    expect(out).toContain('`npm run soak -- --kills 3` on 2026-11-29: 2 cores');
    // written twice, the same
    expect(writeSoakDocs(out, result, machine, 'npm run soak -- --kills 3')).toBe(out);
  });

  it('refuses a doc without the block', () => {
    expect(() => writeSoakDocs('no markers', result, machine, 'x')).toThrow(/soak:kills/);
  });
});
