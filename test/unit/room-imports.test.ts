// The folders of src/ import one another only as the table in docs/architecture.md allows ("Which
// room may import which"): the test reads that table, so the doc and the code cannot drift apart.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allImports } from '../support/import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
const DOC = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');

/** Each room of the table with what it may import: folders (`store/`), files (`api/types.ts`), or '*'. */
function allowedImports(doc: string): Map<string, string[]> {
  const table = /<!-- room-imports -->\n\| room \| may import \|\n\|---\|---\|\n((?:\|.*\|\n)+)/.exec(doc)?.[1];
  if (!table) throw new Error('docs/architecture.md has no room-imports table');
  const rooms = new Map<string, string[]>();
  for (const line of table.trim().split('\n')) {
    const [, room, allowed] = /^\| `(\w+)\/` \| (.*) \|$/.exec(line) ?? [];
    if (!room || allowed === undefined) throw new Error(`not a row of the room-imports table: ${line}`);
    rooms.set(room, allowed === 'every room' ? ['*'] : [...allowed.matchAll(/`([\w./-]+)`/g)].map((m) => m[1]!));
  }
  return rooms;
}

/** The imports of `graph` that leave their room for one its row does not name, as `from → to`. */
function forbiddenImports(graph: Map<string, string[]>, allowed: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const room = file.split('/')[0]!;
    const may = allowed.get(room) ?? [];
    for (const target of targets) {
      if (target.split('/')[0] === room || may.includes('*')) continue;
      if (!may.some((m) => (m.endsWith('/') ? target.startsWith(m) : target === m))) out.push(`${file} → ${target}`);
    }
  }
  return out.sort();
}

describe('imports between the folders of src/', () => {
  const allowed = allowedImports(DOC);

  it('the table lists every folder of src/, once', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect([...allowed.keys()].sort()).toEqual(folders.sort());
  });

  it('go only where docs/architecture.md allows', () => {
    const graph = allImports(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(forbiddenImports(graph, allowed)).toEqual([]);
  });

  it('the checker names an import the table does not allow, and passes one it does', () => {
    const rules = new Map([
      ['store', ['api/types.ts', 'shared/']],
      ['search', ['store/']],
      ['cli', ['*']],
    ]);
    const graph = new Map([
      ['store/derive.ts', ['store/database.ts', 'search/schema.ts', 'api/types.ts', 'api/client.ts']],
      ['search/search.ts', ['store/search-index/tokenize.ts']],
      ['cli/main.ts', ['search/search.ts']],
    ]);
    expect(forbiddenImports(graph, rules)).toEqual(['store/derive.ts → api/client.ts', 'store/derive.ts → search/schema.ts']);
  });
});
