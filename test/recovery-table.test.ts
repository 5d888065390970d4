// The recovery table of docs/guarantees.md ("How to recover from each error you can see"), row by
// row: each message a user is told to look for is produced here by the built CLI, with the exit
// code the table gives. A row added to the table without a scenario here fails.
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { lastGoodPath } from '../src/store/last-good.js';
import { runCli, startCli, type CliResult } from './support/cli.js';
import { scratch } from './support/scratch.js';

const GUARANTEES = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'guarantees.md');

interface Row {
  /** the texts in backticks of the "you see" cell, each one way the message reads */
  messages: string[];
  /** the exit code, or null for "—" (a line on stderr while the run goes on) */
  exit: number | null;
}

/** The table's rows that quote a message (a row without one describes no message to produce). */
export function recoveryRows(markdown: string): Row[] {
  const section = markdown.split('**How to recover from each error you can see.**')[1];
  if (!section) throw new Error('docs/guarantees.md has no recovery table');
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length !== 3 || cells[0] === 'you see' || /^-+$/.test(cells[0]!)) continue;
    const messages = [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    if (messages.length === 0) continue;
    rows.push({ messages, exit: cells[1] === '—' ? null : Number(cells[1]) });
  }
  return rows;
}

/** A quoted message as a pattern: `…` stands for any text on the line, N and M for numbers (Ns: seconds). */
function pattern(message: string): RegExp {
  const escaped = message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(escaped.replace(/…/g, '.*').replace(/\b[NM](s?)\b/g, '\\d+$1'));
}

const rows = recoveryRows(readFileSync(GUARANTEES, 'utf8'));
const { simulator, tempDb } = scratch('recovery', { rateLimit: 100_000 });
const servers: http.Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

const envFor = (sim: Simulator, dbPath: string, extra: NodeJS.ProcessEnv = {}) => ({
  CONVODUCK_BASE_URL: sim.baseUrl,
  CONVODUCK_API_KEY: sim.apiKey,
  CONVODUCK_DB: dbPath,
  ...extra,
});

/** A loopback server standing in for an API that answers every request with `answer`. */
async function fakeApi(answer: (path: string) => { status: number; body: unknown }): Promise<string> {
  const server = http.createServer((req, res) => {
    const { status, body } = answer(req.url ?? '/');
    res.writeHead(status, { 'content-type': 'application/json', 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' });
    res.end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}

/**
 * A convoduck database (its schema, no rows) torn as a kill in DuckDB's write of its first
 * metadata block leaves it; with `copy`, its last-good copy beside it, as a sync keeps one
 * (`damaged`: torn the same way).
 */
async function damagedFile({ copy }: { copy: boolean | 'damaged' }): Promise<string> {
  const dbPath = tempDb();
  await Database.with(dbPath, async () => undefined);
  if (copy) copyFileSync(dbPath, lastGoodPath(dbPath));
  for (const path of copy === 'damaged' ? [dbPath, lastGoodPath(dbPath)] : [dbPath]) {
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(64, 7), 0, 64, 12_288 + 200);
    closeSync(fd);
  }
  return dbPath;
}

/** One way to make the tool print a row's message. */
type Scenario = () => Promise<CliResult>;

const scenarios: Record<string, Scenario> = {
  'no API key': async () => runCli(['sync'], { CONVODUCK_BASE_URL: 'http://127.0.0.1:9/api/v1', CONVODUCK_DB: tempDb() }),
  'no API address': async () => runCli(['sync'], { CONVODUCK_API_KEY: 'np_test_key_recovery', CONVODUCK_DB: tempDb() }),
  'base URL …': async () =>
    runCli(['sync'], { CONVODUCK_BASE_URL: 'http://127.0.0.1:9/v2', CONVODUCK_API_KEY: 'np_test_key_recovery', CONVODUCK_DB: tempDb() }),
  '… 401 unauthenticated: … The API key was not accepted': async () => {
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, tempDb(), { CONVODUCK_API_KEY: 'np_not_the_key_0123456789' }));
  },
  '… 403 forbidden: … The key is not allowed here': async () => {
    // a server that names a space and then refuses the key in it
    const baseUrl = await fakeApi((path) =>
      path.endsWith('/spaces')
        ? { status: 200, body: { data: { slug: 'acme' } } }
        : { status: 403, body: { error: { code: 'forbidden', message: 'This API key does not give access to space "acme".' } } },
    );
    return runCli(['sync'], { CONVODUCK_BASE_URL: baseUrl, CONVODUCK_API_KEY: 'np_test_key_recovery', CONVODUCK_DB: tempDb() });
  },
  'directory … does not exist': async () => {
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, join(dirname(tempDb()), 'no-such-dir', 'x.duckdb')));
  },
  'cannot write in …': async () => {
    // root ignores permission bits: only a read-only file system refuses it
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, '/sys/convoduck.duckdb'));
  },
  '… is not a DuckDB database': async () => {
    const sim = await simulator({ conversations: 3 });
    const dbPath = tempDb();
    writeFileSync(dbPath, 'name,value\na,1\n');
    return runCli(['sync'], envFor(sim, dbPath));
  },
  'another convoduck sync (pid N) is already writing': async () => {
    const sim = await simulator({ conversations: 40, latency: { detailMs: 200 } });
    const dbPath = tempDb();
    const first = startCli(['sync'], envFor(sim, dbPath));
    try {
      const deadline = Date.now() + 20_000;
      while (!existsSync(`${dbPath}.sync-lock`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return await runCli(['sync'], envFor(sim, dbPath));
    } finally {
      first.child.kill('SIGKILL');
      await first.done;
    }
  },
  'database … stayed locked by another process': async () => {
    const sim = await simulator({ conversations: 3 });
    const dbPath = tempDb();
    expect((await runCli(['sync'], envFor(sim, dbPath))).code).toBe(0);
    // another process holds the file for longer than a reader's --wait and a sync's 30 s
    const holder = await Database.open(dbPath);
    try {
      const [query, sync] = await Promise.all([
        runCli(['query', '--wait', '1s', 'SELECT count(*) FROM conversations'], { CONVODUCK_DB: dbPath }),
        runCli(['sync'], envFor(sim, dbPath)),
      ]);
      expect(query.code, query.stderr).toBe(1);
      expect(query.stderr).toMatch(pattern('database … stayed locked by another process'));
      return sync;
    } finally {
      holder.close();
    }
  },
  'sync errors in …': async () => {
    const sim = await simulator({ conversations: 20 });
    const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
    sim.breakConversation(finished[0]!.id, 'redirect');
    sim.breakConversation(finished[1]!.id, 'redirect');
    const result = await runCli(['sync'], envFor(sim, tempDb()));
    expect(result.stderr).toMatch(/\b0 retried, 2 errors\b/);
    return result;
  },
  'N details set aside (raw body kept; see the api_drift report)': async () => {
    const sim = await simulator({ conversations: 20 });
    const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
    sim.realData.set(finished[0]!.id, { drift: ['list_as_object'] });
    sim.realData.set(finished[1]!.id, { drift: ['bad_date'] });
    return runCli(['sync'], envFor(sim, tempDb()));
  },
  'N conversations deleted at the source': async () => {
    const sim = await simulator({ conversations: 20 });
    const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
    sim.realData.set(finished[0]!.id, { deleted: true });
    sim.realData.set(finished[1]!.id, { deleted: true });
    return runCli(['sync'], envFor(sim, tempDb()));
  },
  'listing … is short: the server counts N conversations, M were served': async () => {
    const sim = await simulator({ conversations: 60, hiddenFromLists: 2 });
    return runCli(['sync'], envFor(sim, tempDb()));
  },
  'waiting Ns: …': async () => {
    // another job spent the key just before the run: the run waits for the window to turn over,
    // once (a budget that holds the whole run after the turnover)
    const windowMs = 12_000;
    const sim = await simulator({ conversations: 5, rateLimit: 20, windowMs });
    for (let i = 0; i < 19; i++) await (await request(`${sim.baseUrl}/spaces`, { headers: { authorization: `Bearer ${sim.apiKey}` } })).body.dump();
    return runCli(['sync'], envFor(sim, tempDb(), { CONVODUCK_RATE_WINDOW_MS: String(windowMs) }));
  },
  'warning: … is damaged and does not open …; restored from its last-good copy of …': async () => {
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, await damagedFile({ copy: true })));
  },
  'cannot open database …: IO Error: Corrupt database file: …': async () => {
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, await damagedFile({ copy: false })));
  },
  'cannot open database …: … — the file is damaged, and so is its last-good copy …': async () => {
    const sim = await simulator({ conversations: 3 });
    return runCli(['sync'], envFor(sim, await damagedFile({ copy: 'damaged' })));
  },
  'sync failed: …': async () => {
    // a server whose /spaces names no space: nothing to crawl, nothing stored
    const baseUrl = await fakeApi(() => ({ status: 200, body: { data: [] } }));
    return runCli(['sync'], { CONVODUCK_BASE_URL: baseUrl, CONVODUCK_API_KEY: 'np_test_key_recovery', CONVODUCK_DB: tempDb() });
  },
};

describe('the recovery table in docs/guarantees.md', () => {
  it('has rows, and a scenario for every message it quotes', () => {
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const quoted = rows.flatMap((r) => r.messages);
    expect(quoted.filter((m) => !(m in scenarios))).toEqual([]);
    expect(Object.keys(scenarios).filter((m) => !quoted.includes(m))).toEqual([]);
  });

  for (const row of rows) {
    for (const message of row.messages) {
      it(`\`${message}\` is printed, exit ${row.exit ?? 'as the run ends'}`, async () => {
        const scenario = scenarios[message];
        expect(scenario, 'no scenario for this row').toBeDefined();
        const result = await scenario!();
        expect(result.stderr, result.stderr).toMatch(pattern(message));
        if (row.exit !== null) {
          expect(result.code, result.stderr).toBe(row.exit);
          // an error row is one line in the house form, whatever else the run printed before it
          const line = result.stderr.split('\n').find((l) => pattern(message).test(l))!;
          expect(line.startsWith('convoduck: ') || line.startsWith('sync ')).toBe(true);
          expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
        }
      }, 300_000);
    }
  }
});
