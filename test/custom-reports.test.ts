// A folder of the user's own reports (`report --sql-dir DIR`, CONVODUCK_SQL_DIR): its .sql files
// run beside the built-in reports, read the shared relations with the command's filters, and are
// listed by --list; a name taken by a built-in report, or a folder that is missing or not a
// folder, is one line and exit 2 with nothing written. Over a real sync from the simulator.

import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { loadReports } from '../src/reports/index.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('custom');

const NOW = new Date('2026-11-06T12:00:00Z');

let dir: string;
let dbPath: string;
let sim: Simulator;
let custom: string;
const BUILT_IN = loadReports().map((r) => r.name);

const VOICE_CALLS = `-- Title: Voice calls per agent
--
-- One row: one agent with voice conversations.
--
-- Columns:
--   agent_id     agent
--   calls        voice conversations started in the range
--   last_start   the latest of them
--
-- Parameters: the filters (it reads filtered_conversations).

SELECT agent_id, count(*) AS calls, max(started_at) AS last_start
FROM filtered_conversations
WHERE channel = 'voice'
GROUP BY agent_id
ORDER BY agent_id;
`;

beforeAll(async () => {
  dir = fileDir();
  dbPath = join(dir, 'custom.duckdb');
  sim = await startSimulator({ seed: 9, conversations: 150, now: NOW, days: 10, rateLimit: 100_000 });
  const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, now: () => sim.clock() });
  expect(summary.status).toBe('ok');
  custom = join(dir, 'my-reports');
  mkdirSync(custom);
  writeFileSync(join(custom, 'voice_calls.sql'), VOICE_CALLS);
  writeFileSync(join(custom, 'notes.txt'), 'not a report');
  expect(BUILT_IN).toContain('outcomes');
});

afterAll(async () => {
  await sim?.close();
});

/** What voice_calls must hold, from the simulator's own data: agent_id → [calls, last start]. */
function expectedVoiceCalls(agents?: readonly string[]): Map<string, [number, string]> {
  const out = new Map<string, [number, number]>();
  for (const c of sim.dataset.conversations) {
    if (c.channel !== 'voice' || (agents && !agents.includes(c.agent_id))) continue;
    const ms = Date.parse(c.started_at);
    const [n, last] = out.get(c.agent_id) ?? [0, -Infinity];
    out.set(c.agent_id, [n + 1, Math.max(last, ms)]);
  }
  return new Map([...out].map(([id, [n, last]]) => [id, [n, new Date(last).toISOString().replace('.000Z', 'Z')]]));
}

function readVoiceCalls(path: string): Map<string, [number, string]> {
  const [header, ...lines] = readFileSync(path, 'utf8').trimEnd().split('\n');
  expect(header).toBe('agent_id,calls,last_start');
  return new Map(lines.map((l) => l.split(',')).map(([id, n, last]) => [id!, [Number(n), last!]]));
}

describe('report --sql-dir', () => {
  it('runs the folder’s reports beside the built-in ones, with the shared relations and the filters', async () => {
    const out = join(dir, 'all');
    const res = await runCli(['report', '--db', dbPath, '--sql-dir', custom, '--out', out]);
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual([...[...BUILT_IN, 'voice_calls'].map((n) => `${n}.csv`), 'columns.md'].sort());
    expect(res.stderr).toMatch(/^voice_calls: \d+ rows → /m);
    const all = expectedVoiceCalls();
    expect(all.size).toBeGreaterThan(1);
    expect(readVoiceCalls(join(out, 'voice_calls.csv'))).toEqual(all);

    // --agent reaches the custom report through filtered_conversations
    const one = [...all.keys()][0]!;
    const filtered = join(dir, 'one-agent');
    const only = await runCli(['report', 'voice_calls', '--db', dbPath, '--sql-dir', custom, '--agent', one, '--out', filtered]);
    expect(only.code, only.stderr).toBe(0);
    expect(readdirSync(filtered).sort()).toEqual(['columns.md', 'voice_calls.csv']);
    expect(readVoiceCalls(join(filtered, 'voice_calls.csv'))).toEqual(expectedVoiceCalls([one]));
  });

  it('takes the folder from CONVODUCK_SQL_DIR; --sql-dir wins over it', async () => {
    const out = join(dir, 'env');
    const res = await runCli(['report', 'voice_calls', 'outcomes', '--db', dbPath, '--out', out], { CONVODUCK_SQL_DIR: custom });
    expect(res.code, res.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['columns.md', 'outcomes.csv', 'voice_calls.csv']);

    const other = join(dir, 'other-reports');
    mkdirSync(other);
    writeFileSync(join(other, 'agent_count.sql'), '-- Title: Agents\nSELECT count(*) AS agents FROM agents\n');
    const both = await runCli(['report', '--list', '--sql-dir', other], { CONVODUCK_SQL_DIR: custom });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toMatch(/^agent_count\s+Agents {2}\(.*agent_count\.sql\)$/m);
    expect(both.stdout).not.toMatch(/voice_calls/);
  });

  it('--list shows the custom reports with their titles and files, beside the built-in ones', async () => {
    const res = await runCli(['report', '--list', '--sql-dir', custom]);
    expect(res.code, res.stderr).toBe(0);
    const names = res.stdout.trimEnd().split('\n').map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual([...BUILT_IN, 'voice_calls'].sort());
    expect(res.stdout).toContain(`Voice calls per agent  (${join(custom, 'voice_calls.sql')})`);
    const plain = await runCli(['report', '--list']);
    expect(plain.stdout).not.toContain('voice_calls');
  });

  const refusals: { name: string; folder: () => string; env?: boolean; error: RegExp }[] = [
    {
      name: 'a custom report named like a built-in one',
      folder: () => {
        const clash = join(dir, 'clash');
        mkdirSync(clash, { recursive: true });
        writeFileSync(join(clash, 'voice_calls.sql'), VOICE_CALLS);
        writeFileSync(join(clash, 'outcomes.sql'), '-- Title: my outcomes\nSELECT 1 AS x\n');
        return clash;
      },
      error: /^convoduck: custom report outcomes \(.*clash\/outcomes\.sql\) has the name of a built-in report: rename the file, e.g\. my_outcomes\.sql$/,
    },
    { name: 'a folder that does not exist', folder: () => join(dir, 'nowhere'), error: /^convoduck: --sql-dir .*nowhere does not exist: pass a folder of \.sql reports$/ },
    {
      name: 'a file instead of a folder',
      folder: () => join(custom, 'voice_calls.sql'),
      error: /^convoduck: --sql-dir .*voice_calls\.sql is not a folder: pass a folder of \.sql reports$/,
    },
    {
      name: 'a path through a file',
      folder: () => join(custom, 'notes.txt', 'reports'),
      error: /^convoduck: --sql-dir .*notes\.txt\/reports cannot be read \(ENOTDIR\): pass a folder of \.sql reports$/,
    },
    {
      name: 'a missing folder named by CONVODUCK_SQL_DIR',
      folder: () => join(dir, 'nowhere'),
      env: true,
      error: /^convoduck: CONVODUCK_SQL_DIR .*nowhere does not exist/,
    },
  ];

  it.each(refusals)('refuses $name: one line, exit 2, nothing written', async (c) => {
    const folder = c.folder();
    const out = join(dir, `refused-${c.name.replace(/\W+/g, '-')}`);
    const args = ['report', '--db', dbPath, '--out', out, ...(c.env ? [] : ['--sql-dir', folder])];
    const res = await runCli(args, c.env ? { CONVODUCK_SQL_DIR: folder } : {});
    expect(res.code, res.stderr).toBe(2);
    const lines = res.stderr.trimEnd().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(c.error);
    expect(res.stdout).toBe('');
    expect(existsSync(out)).toBe(false);
    // --list and --html check the folder too
    for (const extra of [['--list'], ['--html']]) {
      const other = await runCli([...args, ...extra], c.env ? { CONVODUCK_SQL_DIR: folder } : {});
      expect(other.code, `${extra[0]}: ${other.stderr}`).toBe(2);
      expect(other.stderr.trimEnd()).toMatch(c.error);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('an empty CONVODUCK_SQL_DIR means none', async () => {
    const res = await runCli(['report', '--list'], { CONVODUCK_SQL_DIR: '' });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(BUILT_IN.length);
  });
});
