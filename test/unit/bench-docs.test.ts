// `npm run bench -- --write-docs`: the tables between a doc's bench markers written from a run's
// figures; blocks of sections the run did not measure, and every line outside the markers, kept.
import { describe, expect, it } from 'vitest';
import { writeBenchDocs, type BenchFigures } from '../../src/bench/docs.js';
import type { Goal } from '../../src/bench/print.js';

const goal = (what: string, met: boolean, measured: string): Goal => ({ what, goal: '< 300 MB', measured, met });

/** A run of `--only normalise,stored`: two sections measured, the others not. */
const figures: BenchFigures = {
  command: 'npm run bench -- --only normalise,stored --write-docs',
  startedAt: '2026-11-26T15:00:00.000Z',
  machine: { revision: 'abc1234', cores: 2, cpu: 'Test CPU', memoryGb: 23.5, node: 'v20.20.2', duckdb: 'v1.5.5', loadAverageAtStart: [2.2, 2, 1.9] },
  loadAverageAtEnd: [1.3, 1.5, 1.7],
  sections: {
    normalise: {
      details: 50_000,
      transcriptTurns: 656_518,
      toolCalls: 48_191,
      nodeVisits: 212_591,
      ndjsonMb: 310,
      generateSec: 12,
      convoduck: { seconds: 60.2, detailsPerSec: 830.4, turnsPerSec: 10_905, dbMb: 120 },
      floor: { seconds: 3.8, detailsPerSec: 13_152, turnsPerSec: 172_768 },
      ratio: 15.84,
      rebuild: { seconds: 4.53, detailsPerSec: 11_028 },
    },
    stored: [
      { stored: 10_000, generateSec: 1.4, dbMb: 12.2, added: 2_000, maxRssMb: 202.4, seconds: 9.31, cpuSec: 11.4, detailsPerSec: 216, status: 'ok' },
      { stored: 1_000_000, generateSec: 72.1, dbMb: 912, added: 2_000, maxRssMb: 215, seconds: 18.04, cpuSec: 25.2, detailsPerSec: 111, status: 'ok' },
    ] as BenchFigures['sections']['stored'],
  },
  goals: { stored: [goal('stored: peak RSS, sync over 10,000', true, '202 MB'), goal('stored: peak RSS, sync over 1,000,000', false, '315 MB')] },
};

const doc = [
  '# Performance',
  '',
  'Prose with a figure of its own: 41 s.',
  '',
  '<!-- bench:normalise -->',
  'old normalise table',
  '<!-- /bench:normalise -->',
  '',
  'Between the blocks.',
  '',
  '<!-- bench:stored -->',
  '| old | stored |',
  '<!-- /bench:stored -->',
  '',
  '<!-- bench:spaces -->',
  '| spaces | from an earlier run |',
  '<!-- /bench:spaces -->',
  '',
].join('\n');

const block = (text: string, name: string): string => {
  const m = new RegExp(`<!-- bench:${name} -->\\n([\\s\\S]*?)\\n<!-- /bench:${name} -->`).exec(text);
  expect(m, name).not.toBeNull();
  return m![1]!;
};

describe('writeBenchDocs', () => {
  const written = writeBenchDocs(doc, figures);

  it('writes the blocks of the sections that ran from their figures', () => {
    expect(block(written, 'stored').split('\n').slice(0, 4)).toEqual([
      '| stored | file | generated in | peak RSS | wall | details/s | CPU |',
      '|---|---|---|---|---|---|---|',
      '| 10,000 | 12 MB | 1.40 s | **202 MB** | 9.31 s | 216 | 11.4 s |',
      '| 1,000,000 | 912 MB | 72.1 s | **215 MB** | 18.0 s | 111 | 25.2 s |',
    ]);
    const normalise = block(written, 'normalise');
    expect(normalise).toContain('50,000 generated details (656,518 transcript turns, 48,191 tool calls, 212,591 node visits)');
    expect(normalise).toMatch(/^\| convoduck's write path .* \| \*\*830\*\* \| 10,905 \| 60\.2 s \|$/m);
    expect(normalise).toMatch(/^\| `convoduck rebuild` of the same data \| 11,028 \| {2}\| 4\.53 s \|$/m);
    expect(normalise).toContain('convoduck takes **15.8×** the floor');
  });

  it("states the section's goals and where and how the figures were measured", () => {
    const stored = block(written, 'stored');
    expect(stored).toContain('Goals: stored: peak RSS, sync over 10,000, < 300 MB: met (202 MB); stored: peak RSS, sync over 1,000,000, < 300 MB: **not met** (315 MB).');
    expect(stored).toContain(
      '_Measured by `npm run bench -- --only normalise,stored --write-docs` on 2026-11-26: 2 cores (Test CPU), 23.5 GB, Node v20.20.2, DuckDB v1.5.5; load average 2.2 at the start and 1.3 at the end._',
    );
    expect(block(written, 'normalise')).not.toContain('Goals:');
  });

  it('leaves the blocks of sections that did not run, and everything outside the markers, as they were', () => {
    expect(block(written, 'spaces')).toBe('| spaces | from an earlier run |');
    const outside = (text: string) => text.replace(/<!-- bench:([\w-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->/g, '<$1>');
    expect(outside(written)).toBe(outside(doc));
  });

  it('gives the same doc when run again on its own output', () => {
    expect(writeBenchDocs(written, figures)).toBe(written);
  });

  it('refuses a marker it does not know or one left open', () => {
    expect(() => writeBenchDocs('<!-- bench:nonsense -->\nx\n<!-- /bench:nonsense -->\n', figures)).toThrow(/unknown bench block "nonsense"/);
    expect(() => writeBenchDocs('<!-- bench:stored -->\nx\n', figures)).toThrow(/has no <!-- \/bench:stored -->/);
  });
});
