// The one-file-per-space layout (`--db-dir DIR`): each space's data and load state live in
// DIR/<slug>.duckdb, so a space moves between machines or shards by being opened elsewhere.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InvalidInputError } from '../shared/errors.js';

const SUFFIX = '.duckdb';

/** A slug safe as a file name: the API's slugs are already; anything else is refused, never rewritten. */
export function checkSpaceFileName(slug: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(slug) || slug.includes('..')) {
    throw new InvalidInputError(`space ${JSON.stringify(slug)} cannot name a file in --db-dir — use a slug of letters, digits, '.', '_' and '-'`);
  }
}

/** Where space `slug` lives in `dir`. */
export function spaceDbPath(dir: string, slug: string): string {
  checkSpaceFileName(slug);
  return join(resolve(dir), `${slug}${SUFFIX}`);
}

/** The spaces `dir` holds, by slug, sorted; a missing directory holds none. */
export function listSpaceDbs(dir: string): { slug: string; path: string }[] {
  const root = resolve(dir);
  if (!existsSync(root)) return [];
  if (!statSync(root).isDirectory()) throw new InvalidInputError(`--db-dir ${dir} is not a directory — give the folder of the space files`);
  return readdirSync(root)
    .filter((f) => f.endsWith(SUFFIX) && statSync(join(root, f)).isFile())
    .map((f) => ({ slug: f.slice(0, -SUFFIX.length), path: join(root, f) }))
    .sort((a, b) => a.slug.localeCompare(b.slug));
}
