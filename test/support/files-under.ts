// Every file below a folder, by its path relative to the folder, sorted; a missing folder holds none.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}
