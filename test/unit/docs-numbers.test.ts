// The numbers the docs state about the schema, read against the code that defines them: the
// schema version docs/schema.md gives (and the last migration step it describes), the tables
// `export` writes by default as docs/commands.md counts them, and the public tables the docs list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { PUBLIC_TABLES, SCHEMA_VERSION } from '../../src/store/schema.js';

const doc = (name: string): string => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];

/** The number a docs sentence writes, in digits or in words. */
function numberIn(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : WORDS.indexOf(text.toLowerCase());
}

describe('the numbers in docs/', () => {
  it('docs/schema.md gives the schema version of the code, and describes its last migration', () => {
    const schema = doc('docs/schema.md');
    const stated = /holds the schema version \((\d+)\)/.exec(schema)?.[1];
    expect(stated, 'docs/schema.md: "holds the schema version (N)"').toBeDefined();
    expect(numberIn(stated!)).toBe(SCHEMA_VERSION);
    expect(Math.max(...Object.keys(MIGRATIONS).map(Number))).toBe(SCHEMA_VERSION);
    // the upgrade paragraph walks every step up to the current version
    const steps = [...schema.matchAll(/\b(\d+) → (\d+)\b/g)].map((m) => Number(m[2]));
    expect(Math.max(...steps)).toBe(SCHEMA_VERSION);
  });

  it('docs/commands.md gives the tables export writes by default as PUBLIC_TABLES has them', () => {
    const row = /^\| `--tables LIST` \| (.*)$/m.exec(doc('docs/commands.md'))?.[1];
    expect(row, 'docs/commands.md: the --tables row').toBeDefined();
    const stated = /\(default: all (\w+)/.exec(row!)?.[1];
    expect(stated, 'the --tables row: "(default: all …"').toBeDefined();
    // "all of them" states no count; a count stated must be the code's
    if (stated !== 'of') expect(numberIn(stated!)).toBe(PUBLIC_TABLES.length);
  });

  it('docs/schema.md and the README list every public table', () => {
    const schema = doc('docs/schema.md');
    const readme = doc('README.md');
    expect(PUBLIC_TABLES.filter((t) => !schema.includes(`**\`${t}\`**`))).toEqual([]);
    // a README row names one table or several in its first cell: | `tools`, `connections` | … |
    const listed = new Set([...readme.matchAll(/^\| (`\w+`(?:, `\w+`)*) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!)));
    expect(PUBLIC_TABLES.filter((t) => !listed.has(t))).toEqual([]);
  });
});
