// `report --html --space SLUG`: the page's header names the space filter as it names the agent and
// channel filters (two spaces synced from simulators into one database over real HTTP).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import { runCli } from './support/cli.js';
import { unescape } from './support/html-page.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb, fileDir } = scratch('html-space');
const out = fileDir();

/** The header's lines as people read them (tags dropped), and its h1. */
function header(dir: string): { h1: string; lines: string[] } {
  const html = readFileSync(join(dir, 'report.html'), 'utf8');
  const block = /<header>([\s\S]*?)<\/header>/.exec(html)![1]!;
  const text = (s: string) => unescape(s.replace(/<[^>]+>/g, '')).trim();
  return { h1: text(/<h1>(.*?)<\/h1>/.exec(block)![1]!), lines: [...block.matchAll(/<p[^>]*>(.*?)<\/p>/g)].map((m) => text(m[1]!)) };
}

it('report --html --space names the space among the filters, beside --agent', async () => {
  const sims = await Promise.all([141, 142].map((seed) => simulator({ seed, conversations: 40, rateLimit: 100_000 })));
  const db = tempDb();
  const summary = await syncSpaces({ dbPath: db, spaces: sims.map((s, i) => ({ label: `space ${i}`, baseUrl: s.baseUrl, apiKey: s.apiKey })) });
  expect(summary.spaces.map((s) => s.status)).toEqual(['ok', 'ok']);
  const [one, two] = sims as [(typeof sims)[0], (typeof sims)[0]];

  const all = await runCli(['report', '--html', '--db', db, '--out', join(out, 'all')]);
  expect(all.code, all.stderr).toBe(0);
  expect(header(join(out, 'all')).lines.filter((l) => l.startsWith('Only:'))).toEqual([]);

  const spaced = await runCli(['report', '--html', '--db', db, '--out', join(out, 'one'), '--space', one.space]);
  expect(spaced.code, spaced.stderr).toBe(0);
  const page = header(join(out, 'one'));
  expect(page.h1).toBe(`Conversations report · ${one.space}`);
  expect(page.lines.filter((l) => l.startsWith('Only:'))).toEqual([`Only: space ${one.space}`]);

  const agent = two.dataset.agents[0]!.id;
  const both = await runCli(['report', '--html', '--db', db, '--out', join(out, 'both'), '--space', one.space, '--space', two.space, '--agent', agent]);
  expect(both.code, both.stderr).toBe(0);
  expect(header(join(out, 'both')).lines.filter((l) => l.startsWith('Only:'))).toEqual([`Only: space ${one.space}, ${two.space}; agent ${agent}`]);
}, 300_000);
