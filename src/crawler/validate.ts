// Pure checks of a response before it is stored.

const MAX_DEPTH = 64;

function depth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  if (limit <= 0) return Infinity;
  let deepest = 0;
  for (const child of Object.values(value)) {
    deepest = Math.max(deepest, depth(child, limit - 1));
    if (deepest === Infinity) break;
  }
  return deepest + 1;
}

/** DuckDB's JSON reader refuses very deep nesting, so such a body cannot be kept in a JSON column. */
export function nestsTooDeep(body: unknown): boolean {
  return depth(body, MAX_DEPTH) === Infinity;
}
