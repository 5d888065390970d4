// `convoduck search` over real HTTP and a real DuckDB file: planted phrases rank first, every score
// equals an independent BM25 over the turns read back, filters select as the reports do, the index
// kept incrementally (new conversations, a re-fetched turn) equals one built from scratch, erasure
// removes a conversation's index rows, an older database gets its index, and bad input exits 2.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { INDEX_ALL_SQL } from '../src/store/search-index/schema.js';
import { STOPWORDS } from '../src/store/search-index/tokenize.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';

const { fileDir } = scratch('search');

let sim: Simulator;
let dir: string;
let db: string;
let copies = 0;

/** Phrases put in known turns before the first sync, and a query each should rank first for. */
const PLANTED = [
  { seq: 1, text: 'My refund was not received and the quokka invoice is wrong', query: 'quokka refund not received' },
  { seq: 2, text: 'The zebra parcels arrived crushed, zebra stripes everywhere', query: 'crushed zebra parcel' },
];
const planted: { id: string; seq: number; text: string; query: string }[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 28, conversations: 120, rateLimit: 100_000 });
  dir = fileDir();
  db = join(dir, 'search.duckdb');
  const finished = sim.dataset.records.filter((r) => !r.open && (sim.dataset.detail(r.id)!.transcript?.length ?? 0) > 3);
  PLANTED.forEach((p, i) => {
    const id = finished[10 + i * 7]!.id;
    sim.dataset.setTurnText(id, p.seq, p.text);
    planted.push({ id, ...p });
  });
  const synced = await runCli(['sync'], env(db));
  expect(synced.code, synced.stderr).toBe(0);
}, 300_000);

function env(dbPath: string): NodeJS.ProcessEnv {
  return { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
}

function copyOf(path: string): string {
  const copy = join(dir, `copy-${++copies}.duckdb`);
  copyFileSync(path, copy);
  return copy;
}

interface Hit {
  rank: number;
  score: number;
  space: string;
  agent_id: string;
  agent_name: string | null;
  conversation_id: string;
  seq: number;
  spoken_at: string;
  speaker: string;
  node_key: string | null;
  snippet: string;
}

async function search(args: string[], dbPath = db): Promise<Hit[]> {
  const result = await runCli(['search', ...args, '--format', 'json', '--db', dbPath]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Hit[];
}

// ---- an independent BM25, over the turns read back from the database ----

const STOP = new Set<string>(STOPWORDS);

function stem(w: string): string {
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && !w.endsWith('eies') && !w.endsWith('aies')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('es') && !/(aes|ees|oes)$/.test(w)) return w.slice(0, -1);
  if (w.endsWith('s') && !/(us|ss)$/.test(w)) return w.slice(0, -1);
  return w;
}

function termsOf(text: string | null): string[] {
  if (text === null) return [];
  return text
    .toLowerCase()
    .replace(/['’]/g, '')
    .split(/[^\p{L}\p{N}\p{M}]+/u)
    .filter((w) => w !== '' && !STOP.has(w))
    .map(stem);
}

type Turn = {
  conversation_id: string;
  seq: number;
  text: string | null;
  speaker: string;
  agent_id: string;
  channel: string;
  started_at: Date;
};

async function turnsOf(dbPath: string): Promise<Turn[]> {
  const store = await Database.open(dbPath, { readOnly: true });
  try {
    return await store.all<Turn>(
      `SELECT t.conversation_id, t.seq, t.text, t.speaker, c.agent_id, c.channel, c.started_at
       FROM transcript_turns t JOIN conversations c ON c.id = t.conversation_id`,
    );
  } finally {
    store.close();
  }
}

/** Score of every turn holding a query term (N, df and the mean length over all turns), those `keep` selects. */
function bm25(turns: readonly Turn[], query: string, keep: (t: Turn) => boolean = () => true): Map<string, number> {
  const k1 = 1.2;
  const b = 0.75;
  const docs = turns.map((t) => ({ turn: t, terms: termsOf(t.text) }));
  const avgdl = docs.reduce((n, d) => n + d.terms.length, 0) / docs.length;
  const q = [...new Set(termsOf(query))];
  const df = new Map(q.map((term) => [term, docs.filter((d) => d.terms.includes(term)).length]));
  const scores = new Map<string, number>();
  for (const d of docs) {
    if (!keep(d.turn)) continue;
    let score = 0;
    let matched = false;
    for (const term of q) {
      const tf = d.terms.filter((t) => t === term).length;
      if (tf === 0) continue;
      matched = true;
      const n = df.get(term)!;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.terms.length) / avgdl));
    }
    if (matched) scores.set(`${d.turn.conversation_id}:${d.turn.seq}`, score);
  }
  return scores;
}

function expectSameScores(hits: readonly Hit[], expected: Map<string, number>): void {
  const got = new Map(hits.map((h) => [`${h.conversation_id}:${h.seq}`, h.score]));
  expect([...got.keys()].sort()).toEqual([...expected.keys()].sort());
  for (const [key, score] of expected) expect(got.get(key), key).toBeCloseTo(score, 5);
  for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
}

// ---- the index, as stored and as built from scratch ----

async function indexOf(dbPath: string): Promise<{ terms: string[]; turns: string[] }> {
  const store = await Database.open(dbPath, { readOnly: true });
  try {
    const terms = await store.all<{ r: string }>(
      `SELECT concat_ws(' ', term, conversation_id, seq, tf, turn_terms) AS r FROM search_terms ORDER BY r`,
    );
    const turns = await store.all<{ r: string }>(`SELECT conversation_id || ' ' || seq || ' ' || terms AS r FROM search_turns ORDER BY r`);
    return { terms: terms.map((x) => x.r), turns: turns.map((x) => x.r) };
  } finally {
    store.close();
  }
}

async function indexFromScratch(dbPath: string): Promise<{ terms: string[]; turns: string[] }> {
  const copy = copyOf(dbPath);
  await Database.with(copy, (store) => store.transaction(() => store.run(INDEX_ALL_SQL)));
  return indexOf(copy);
}

describe('search', () => {
  it('ranks the turn holding a planted phrase first, with the matched words marked', async () => {
    for (const p of planted) {
      const hits = await search([p.query]);
      expect(hits[0], p.query).toMatchObject({ conversation_id: p.id, seq: p.seq, rank: 1 });
      expect(hits[0]!.snippet).toContain('«');
    }
    const [first] = await search(['quokka refund not received']);
    expect(first!.snippet).toBe('My «refund» was «not» «received» and the «quokka» invoice is wrong');
  });

  it('prints --format json rows with the documented columns and types', async () => {
    const hits = await search(['zebra', '--limit', '3']);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(3);
    const [h] = hits;
    expect(Object.keys(h!)).toEqual([
      'rank', 'score', 'space', 'agent_id', 'agent_name', 'conversation_id', 'seq', 'spoken_at', 'speaker', 'node_key', 'snippet',
    ]);
    expect(h).toMatchObject({ rank: 1, space: sim.space, conversation_id: planted[1]!.id, seq: 2 });
    expect(typeof h!.score).toBe('number');
    expect(h!.spoken_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const agent = sim.dataset.agents.find((a) => a.id === h!.agent_id);
    expect(h!.agent_name).toBe(agent?.name);
  });

  it('scores every turn as an independent BM25 over the stored turns', async () => {
    const turns = await turnsOf(db);
    for (const query of ['quokka refund not received', 'umbrella order', 'fully waterproof', 'help with my booking today']) {
      const hits = await search([query, '--limit', '100000']);
      expect(hits.length, query).toBeGreaterThan(0);
      expectSameScores(hits, bm25(turns, query));
    }
  });

  it('applies --speaker, --agent, --channel and --since/--until (and the old --from/--to), the statistics staying those of every turn', async () => {
    const turns = await turnsOf(db);
    const query = 'umbrella order help';
    const callerHits = await search([query, '--speaker', 'caller', '--limit', '100000']);
    expect(callerHits.every((h) => h.speaker === 'caller')).toBe(true);
    expectSameScores(callerHits, bm25(turns, query, (t) => t.speaker === 'caller'));

    const agent = turns[0]!.agent_id;
    const agentHits = await search([query, '--agent', agent, '--limit', '100000']);
    expect(agentHits.every((h) => h.agent_id === agent)).toBe(true);
    expectSameScores(agentHits, bm25(turns, query, (t) => t.agent_id === agent));

    const chatHits = await search([query, '--channel', 'chat', '--limit', '100000']);
    expectSameScores(chatHits, bm25(turns, query, (t) => t.channel === 'chat'));

    const starts = turns.map((t) => t.started_at.getTime()).sort((x, y) => x - y);
    const from = new Date(starts[Math.floor(starts.length / 3)]!);
    const to = new Date(starts[Math.floor((2 * starts.length) / 3)]!);
    const windowHits = await search([query, '--since', from.toISOString(), '--until', to.toISOString(), '--limit', '100000']);
    expect(windowHits.length).toBeGreaterThan(0);
    expectSameScores(windowHits, bm25(turns, query, (t) => t.started_at >= from && t.started_at < to));

    // the old names still work for a release: the same rows, and one notice line per old flag
    const old = await runCli(['search', query, '--from', from.toISOString(), '--to', to.toISOString(), '--limit', '100000', '--json', '--db', db]);
    expect(old.code, old.stderr).toBe(0);
    expect(JSON.parse(old.stdout)).toEqual(windowHits);
    expect(old.stderr.trimEnd().split('\n')).toEqual([
      'convoduck: --from is deprecated and goes in the next release — use --since (same meaning)',
      'convoduck: --to is deprecated and goes in the next release — use --until (same meaning)',
      'convoduck: --json is deprecated and goes in the next release — use --format json (same meaning)',
    ]);
  });

  it('keeps the index equal to one built from scratch as conversations arrive and are fetched again', async () => {
    const inc = copyOf(db);
    expect(await indexOf(inc)).toEqual(await indexFromScratch(inc));

    // An open conversation is fetched again once it has finished: its turns (and one of them
    // changed) replace the stored ones. New conversations arrive beside it.
    const open = (await turnsOf(inc)).map((t) => t.conversation_id);
    const reopened = sim.dataset.openRecords().find((r) => open.includes(r.id));
    expect(reopened, 'an open conversation with stored turns').toBeDefined();
    sim.finishOpenConversations();
    sim.dataset.setTurnText(reopened!.id, 0, 'The wombat delivery never arrived');
    sim.addConversations(15, { open: false });
    const again = await runCli(['sync'], env(inc));
    expect(again.code, again.stderr).toBe(0);

    const after = await indexOf(inc);
    expect(after).toEqual(await indexFromScratch(inc));
    const [wombat] = await search(['wombat delivery'], inc);
    expect(wombat).toMatchObject({ conversation_id: reopened!.id, seq: 0 });
    expect(after.turns.length).toBe((await turnsOf(inc)).length);
  });

  it('forget removes every index row of the erased conversation', async () => {
    const copy = copyOf(db);
    const target = planted[0]!;
    const forgot = await runCli(['forget', '--id', target.id, '--db', copy]);
    expect(forgot.code, forgot.stderr).toBe(0);
    const store = await Database.open(copy, { readOnly: true });
    const left = await store.one<{ n: number }>(
      `SELECT (SELECT count(*) FROM search_terms WHERE conversation_id = $id) + (SELECT count(*) FROM search_turns WHERE conversation_id = $id) AS n`,
      { id: target.id },
    );
    const quokka = await store.one<{ n: number }>(`SELECT count(*) AS n FROM search_terms WHERE term = 'quokka'`);
    store.close();
    expect(Number(left?.n)).toBe(0);
    expect(Number(quokka?.n)).toBe(0);
    expect((await search([target.query], copy)).some((h) => h.conversation_id === target.id)).toBe(false);
    expect(await indexOf(copy)).toEqual(await indexFromScratch(copy));
  });

  it('builds the index of a database written before it, on first open', async () => {
    const old = copyOf(db);
    await Database.with(old, async (store) => {
      await store.run('DROP TABLE search_terms; DROP TABLE search_turns');
      await store.run(`UPDATE convoduck_meta SET value = '9' WHERE key = 'schema_version'`);
    });
    const hits = await search([planted[1]!.query], old);
    expect(hits[0]).toMatchObject({ conversation_id: planted[1]!.id, seq: planted[1]!.seq });
    expect(await indexOf(old)).toEqual(await indexOf(db));
  });
});

describe('report search_matches', () => {
  it('counts the conversations whose turns hold every word of --search, per day and agent', async () => {
    const out = fileDir('report');
    const run = await runCli(['report', 'search_matches', '--search', 'zebra parcels crushed', '--format', 'json', '--out', out, '--db', db]);
    expect(run.code, run.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    const rows = JSON.parse(readFileSync(join(out, 'search_matches.json'), 'utf8')) as Record<string, unknown>[];
    const turns = await turnsOf(db);
    const q = [...new Set(termsOf('zebra parcels crushed'))];
    const matching = turns.filter((t) => q.every((term) => termsOf(t.text).includes(term)));
    expect(matching.map((t) => t.conversation_id)).toEqual([planted[1]!.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ query: 'zebra parcels crushed', matching_turns: 1, matching_conversations: 1, agent_id: matching[0]!.agent_id });

    const none = await runCli(['report', 'search_matches', '--format', 'json', '--out', out, '--db', db]);
    expect(none.code, none.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, 'search_matches.json'), 'utf8'))).toEqual([]);
  });
});

describe('search: bad input', () => {
  it.each([
    [['search', ''], /search query is empty/],
    [['search'], /search query is empty/],
    [['search', 'the of to'], /holds no word the index keeps/],
    [['search', 'refund', '--limit', '0'], /--limit "0"/],
    [['search', 'refund', '--speaker', 'robot'], /--speaker "robot"/],
    [['search', 'refund', '--format', 'xml'], /--format "xml"/],
    [['search', 'refund', '--since', 'soonish'], /--since/],
  ])('%j: one line, exit 2', async (args, error) => {
    const result = await runCli([...args, '--db', db]);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^convoduck: \S/);
    expect(lines[0]).toMatch(error);
    // with --json the error is also a JSON line on stdout, as for every command
    if (!args.includes('--json')) expect(result.stdout).toBe('');
  });
});

describe('simulator setTurnText', () => {
  it('serves the given text in the given turn and leaves the others', async () => {
    const { id, seq, text } = planted[0]!;
    const response = await fetch(`${sim.baseUrl}/spaces/${sim.space}/conversations/${id}`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { transcript: { text: string }[] } };
    expect(body.data.transcript[seq]!.text).toBe(text);
    expect(body.data.transcript[seq - 1]!.text).not.toBe(text);
    expect(() => sim.dataset.setTurnText(id, 10_000, 'x')).toThrow(/has turns 0\.\./);
  });
});
