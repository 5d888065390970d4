// No two files of src/ import each other, directly or round about, at run time: a cycle makes what
// a module sees at load depend on which file was imported first. Type-only imports are erased.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCycles, runtimeImports } from '../support/import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

describe('imports of src/', () => {
  it('form no cycle at run time', () => {
    const graph = runtimeImports(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('the finder reports each cycle once, from its first file, and none in a tree', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(importCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });
});
