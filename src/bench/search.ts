// Transcript search at scale: a store of N conversations generated in SQL (scale-data.ts), its turns
// given varied text (the simulator's phrases, two a turn) and a few planted phrases, indexed from
// scratch; then where each planted phrase ranks, how long a search takes (median of several, the
// database opened each time as the CLI does), and what keeping the index current costs a sync:
// the same sync into two copies of the store, one with indexing off, CPU time compared.

import { copyFileSync, rmSync, statSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { LIST, VARCHAR, listValue } from '@duckdb/node-api';
import { INDEX_ALL_SQL } from '../store/search-index/schema.js';
import { searchTurns } from '../search/search.js';
import * as P from '../simulator/dataset/phrases.js';
import { Database } from '../store/database.js';
import { runSyncChild, startSimChild } from './children/procs.js';
import { fixed, median } from './measure.js';
import { int, secs, table, type Goal } from './print.js';
import { generateScaleData } from './scale-data.js';

export interface SearchBenchSettings {
  /** conversations in the store */
  stored: number;
  /** conversations each measured sync adds */
  added: number;
  /** searches per query (the median is reported) */
  repeats: number;
  /** syncs with and without indexing, each (alternating); the ratio is of their medians */
  syncPairs: number;
}

export interface SearchBenchResult {
  stored: number;
  turns: number;
  indexRows: number;
  dbMb: number;
  generateSec: number;
  indexSec: number;
  /** each planted phrase's query and the rank of its turn (null: not in the first 20) */
  planted: { query: string; rank: number | null }[];
  /** median wall time of one search (open, rank, print 20 rows as JSON) per query */
  latency: { query: string; medianMs: number; maxMs: number; hits: number }[];
  sync: { added: number; cpuWithSec: number[]; cpuWithoutSec: number[]; wallWithSec: number[]; wallWithoutSec: number[]; ratio: number };
}

const HIGH_LIMIT = 1_000_000_000;

/** Phrases planted in turn 1 of known conversations, and the query that should find each first. */
const PLANTED = [
  { text: 'The quokka invoice shows a double charge on my card', query: 'quokka double charge' },
  { text: 'My zebra parcel arrived crushed and soaking wet', query: 'zebra parcel crushed' },
  { text: 'I cancelled the wombat subscription twice and still pay', query: 'cancelled wombat subscription' },
];

/** Queries of common words too: their postings are long, the slow case. */
const COMMON = ['refund not received', 'where is my order', 'delivery address'];

/** The simulator's lines without placeholders: a vocabulary like real conversations'. */
function phrases(): string[] {
  const lists: unknown[] = Object.values(P).flatMap((v) => (Array.isArray(v) ? [v] : typeof v === 'object' && v !== null ? Object.values(v) : []));
  const lines = lists.flat().filter((x): x is string => typeof x === 'string' && !x.includes('{') && x.length > 12);
  return [...new Set([...lines, 'I never received my refund for the returned order.', 'The delivery address on the order is wrong.'])];
}

class Sink extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function benchSearch(s: SearchBenchSettings, workDir: string, log: (line: string) => void): Promise<SearchBenchResult> {
  const sim = await startSimChild({ seed: 29, conversations: s.added, rateLimit: HIGH_LIMIT });
  const dbPath = join(workDir, 'search.duckdb');
  const copies = [join(workDir, 'search-with.duckdb'), join(workDir, 'search-without.duckdb')];
  const remove = (): void => {
    for (const p of [dbPath, ...copies]) for (const f of [p, `${p}.wal`]) rmSync(f, { force: true });
  };
  remove();
  try {
    log(`search: generating ${s.stored} conversations with varied turns`);
    let t = performance.now();
    const ids = await Database.with(dbPath, async (db) => {
      await generateScaleData(db, s.stored, { space: sim.space, listed: true });
      await db.connection.run(
        `UPDATE transcript_turns SET text = $p[(1 + hash(conversation_id, seq) % len($p))::BIGINT] || ' ' || $p[(1 + hash(seq, conversation_id) % len($p))::BIGINT]`,
        { p: listValue(phrases()) },
        { p: LIST(VARCHAR) },
      );
      const rows = await db.all<{ conversation_id: string }>(
        `SELECT conversation_id FROM transcript_turns WHERE seq = 1 ORDER BY hash(conversation_id) LIMIT ${PLANTED.length}`,
      );
      for (const [i, r] of rows.entries()) {
        await db.run(`UPDATE transcript_turns SET text = ? WHERE conversation_id = ? AND seq = 1`, [PLANTED[i]!.text, r.conversation_id]);
      }
      await db.run('CHECKPOINT');
      return rows.map((r) => r.conversation_id);
    });
    const generateSec = (performance.now() - t) / 1000;

    log('search: indexing every turn from scratch');
    t = performance.now();
    const counts = await Database.with(dbPath, async (db) => {
      await db.transaction(() => db.run(INDEX_ALL_SQL));
      await db.run('CHECKPOINT');
      return db.one<{ turns: number; rows: number }>(
        `SELECT (SELECT count(*) FROM transcript_turns)::INTEGER AS turns, (SELECT count(*) FROM search_terms)::INTEGER AS rows`,
      );
    });
    const indexSec = (performance.now() - t) / 1000;
    const dbMb = statSync(dbPath).size / 1e6;

    log('search: ranking and latency');
    const once = async (query: string): Promise<{ ms: number; rows: { conversation_id: string; seq: number }[] }> => {
      const out = new Sink();
      const start = performance.now();
      await searchTurns(dbPath, { query, limit: 20, format: 'json', out, filters: {} });
      return { ms: performance.now() - start, rows: JSON.parse(out.text) as { conversation_id: string; seq: number }[] };
    };
    const planted = [];
    for (const [i, p] of PLANTED.entries()) {
      const { rows } = await once(p.query);
      const at = rows.findIndex((r) => r.conversation_id === ids[i] && r.seq === 1);
      planted.push({ query: p.query, rank: at === -1 ? null : at + 1 });
    }
    const latency = [];
    for (const query of [...PLANTED.map((p) => p.query), ...COMMON]) {
      const runs = [];
      let hits = 0;
      for (let r = 0; r < s.repeats; r++) {
        const { ms, rows } = await once(query);
        runs.push(ms);
        hits = rows.length;
      }
      runs.sort((a, b) => a - b);
      latency.push({ query, medianMs: runs[Math.floor(runs.length / 2)]!, maxMs: runs[runs.length - 1]!, hits });
    }

    // The same sync into two copies of the store, with and without indexing, alternating so that
    // a change in the machine's load weighs on both.
    const sync = { added: 0, cpuWithSec: [] as number[], cpuWithoutSec: [] as number[], wallWithSec: [] as number[], wallWithoutSec: [] as number[], ratio: 0 };
    for (let pair = 0; pair < s.syncPairs; pair++) {
      for (const indexing of pair % 2 === 0 ? [true, false] : [false, true]) {
        const copy = copies[indexing ? 0 : 1]!;
        for (const f of [copy, `${copy}.wal`]) rmSync(f, { force: true });
        copyFileSync(dbPath, copy);
        log(`search: a sync adding ${s.added} conversations, indexing ${indexing ? 'on' : 'off'}`);
        const run = await runSyncChild({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath: copy, searchIndex: indexing });
        sync.added = run.summary.detailsFetched;
        (indexing ? sync.cpuWithSec : sync.cpuWithoutSec).push(run.userCpuSec + run.systemCpuSec);
        (indexing ? sync.wallWithSec : sync.wallWithoutSec).push(run.wallSec);
      }
    }
    // Medians: one sync slowed by the shared machine would otherwise move the ratio by itself.
    sync.ratio = median(sync.cpuWithSec) / median(sync.cpuWithoutSec);
    return {
      stored: s.stored,
      turns: counts?.turns ?? 0,
      indexRows: counts?.rows ?? 0,
      dbMb,
      generateSec,
      indexSec,
      planted,
      latency,
      sync,
    };
  } finally {
    await sim.close();
    remove();
  }
}

export function printSearch(r: SearchBenchResult, goals: Goal[]): void {
  console.log(
    `\n11. Transcript search over ${int(r.stored)} conversations (${int(r.turns)} turns, ${int(r.indexRows)} index rows; ` +
      `file ${fixed(r.dbMb, 0)} MB; indexed from scratch in ${secs(r.indexSec)} s)`,
  );
  console.log(
    table(
      ['query', 'planted turn ranks', 'median ms', 'max ms', 'rows'],
      r.latency.map((l) => {
        const p = r.planted.find((x) => x.query === l.query);
        return [l.query, p ? (p.rank === null ? 'not in top 20' : String(p.rank)) : '–', fixed(l.medianMs, 0), fixed(l.maxMs, 0), String(l.hits)];
      }),
    ),
  );
  const s = r.sync;
  console.log(
    `     a sync adding ${int(s.added)} conversations: CPU ${s.cpuWithSec.map((x) => secs(x)).join(', ')} s indexing, ` +
      `${s.cpuWithoutSec.map((x) => secs(x)).join(', ')} s not: ×${fixed(s.ratio, 3)} (medians)`,
  );
  const first = r.planted.filter((p) => p.rank === 1).length;
  goals.push({ what: 'search: planted phrases rank first', goal: `${r.planted.length} of ${r.planted.length}`, measured: `${first} of ${r.planted.length}`, met: first === r.planted.length });
  const slowest = Math.max(...r.latency.map((l) => l.medianMs));
  goals.push({ what: `search: query latency over ${int(r.stored)}`, goal: '< 1 s (median, slowest query)', measured: `${fixed(slowest, 0)} ms`, met: slowest < 1000 });
  goals.push({ what: 'search: indexing in a sync', goal: '< 10% more CPU', measured: `×${fixed(s.ratio, 3)}`, met: s.ratio < 1.1 });
}

/** The table of docs/performance.md (docs.ts). */
export function searchDocTable(r: SearchBenchResult): string {
  const rows = r.latency.map((l) => {
    const p = r.planted.find((x) => x.query === l.query);
    return `| ${l.query} | ${p ? (p.rank === null ? 'not in top 20' : `**${p.rank}**`) : '–'} | **${fixed(l.medianMs, 0)} ms** | ${fixed(l.maxMs, 0)} ms |`;
  });
  const s = r.sync;
  return [
    `| query over ${int(r.stored)} conversations (${int(r.turns)} turns) | planted turn ranks | median | max |`,
    '|---|---|---|---|',
    ...rows,
    '',
    '| sync adding | CPU, indexing | CPU, not indexing | ratio of medians | index built from scratch |',
    '|---|---|---|---|---|',
    `| ${int(s.added)} conversations | ${s.cpuWithSec.map((x) => `${secs(x)} s`).join(', ')} | ${s.cpuWithoutSec.map((x) => `${secs(x)} s`).join(', ')} | **×${fixed(s.ratio, 3)}** | ${secs(r.indexSec)} s (${int(r.indexRows)} rows) |`,
  ].join('\n');
}
