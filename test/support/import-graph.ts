// The static imports between the files of a source tree, as Node loads them: `import type`, and
// imports whose every name is a type, are erased by the compiler and left out.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const STATIC_IMPORT = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** True when every name of `{ a, type B }` is a type (the compiler drops the import). */
function onlyTypes(clause: string): boolean {
  const names = /\{([^}]*)\}/.exec(clause);
  if (!names || /^[^{]*\w[^{]*\{/.test(clause.replace(/^\s*type\s+/, ''))) return false;
  const items = names[1]!.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length > 0 && items.every((item) => item.startsWith('type '));
}

/** Each file (relative to `root`) with the files it imports at run time. */
export function runtimeImports(root: string): Map<string, string[]> {
  return importGraph(root, false);
}

/**
 * Each file (relative to `root`) with every file it names in an import: type-only ones and
 * `import('…')` included, since a room that names another's types depends on it all the same.
 */
export function allImports(root: string): Map<string, string[]> {
  return importGraph(root, true);
}

const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function importGraph(root: string, withTypes: boolean): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of filesUnder(root)) {
    const text = readFileSync(file, 'utf8');
    const specs: string[] = [];
    for (const m of text.matchAll(STATIC_IMPORT)) {
      if (!withTypes && (m[2] || (m[3] !== undefined && onlyTypes(m[3])))) continue;
      specs.push(m[4] ?? m[5]!);
    }
    if (withTypes) for (const m of text.matchAll(DYNAMIC_IMPORT)) specs.push(m[1]!);
    graph.set(relative(root, file), specs.map((spec) => relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))));
  }
  return graph;
}

/** Every cycle of the graph, each once, as the files in import order ending where it began. */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const cycles = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = path.slice(path.indexOf(next));
        const start = cycle.indexOf([...cycle].sort()[0]!);
        const canonical = [...cycle.slice(start), ...cycle.slice(0, start)];
        cycles.set(canonical.join(' → '), [...canonical, canonical[0]!]);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...cycles.values()];
}
