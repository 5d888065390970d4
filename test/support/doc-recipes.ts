// Recipes taken from the docs as users copy them: the fenced block after `<!-- recipe:NAME -->`,
// with only its placeholders replaced.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fenced block right after `<!-- recipe:NAME -->` in FILE (from the repository root); the marker must appear exactly once. */
export function recipe(file: string, name: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const marker = `<!-- recipe:${name} -->`;
  expect(text.split(marker), `${marker} in ${file}`).toHaveLength(2);
  const m = new RegExp(`${marker}\\n\`\`\`[^\\n]*\\n([\\s\\S]*?)\\n\`\`\`\\n`).exec(text);
  if (!m) throw new Error(`${marker} in ${file} is not followed by a fenced block`);
  return m[1]! + '\n';
}

/** Replaces each placeholder, every one of which must be in the recipe. */
export function place(text: string, places: Record<string, string>): string {
  for (const [from, to] of Object.entries(places)) {
    expect(text, `placeholder ${from}`).toContain(from);
    text = text.replaceAll(from, to);
  }
  return text;
}
