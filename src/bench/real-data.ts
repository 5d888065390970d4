// Real-world data at scale: the peak memory of a flat-out sync in which some conversations are
// very long (simulator in another process: only convoduck's memory counts) and the largest body
// it stored; then more seeds of the property test's random mixes (test/real-data-property.test.ts),
// each synced twice: no run may fail, and every listed conversation must end in the state the
// simulator's truth gives it.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sync } from '../crawler/sync.js';
import { Database } from '../store/database.js';
import { Rng, startSimulator } from '../simulator/index.js';
import { runSyncChild, startSimChild } from './children/procs.js';

export interface LongSyncResult {
  conversations: number;
  longConversations: number;
  longTurns: number;
  seconds: number;
  maxRssMb: number;
  cpuSec: number;
  status: string;
  detailsFetched: number;
  largestBodyMb: number;
  turnsStored: number;
}

export interface MixResult {
  seed: number;
  listed: number;
  exact: number;
  coerced: number;
  setAside: number;
  deleted: number;
  statuses: string;
  /** every conversation in the state its truth gives it, and the runs' counts agree */
  ok: boolean;
  problem: string | null;
}

export interface RealDataResult {
  long: LongSyncResult;
  mixes: MixResult[];
}

const HIGH_LIMIT = 1_000_000_000;

export async function benchRealData(
  settings: { conversations: number; longShare: number; longTurns: number; seeds: number[] },
  workDir: string,
  log: (s: string) => void,
): Promise<RealDataResult> {
  const long = await longSync(settings, workDir, log);
  const mixes: MixResult[] = [];
  for (const seed of settings.seeds) {
    log(`realdata: mix of seed ${seed}`);
    mixes.push(await mix(seed, join(workDir, `mix-${seed}.duckdb`)));
  }
  return { long, mixes };
}

async function longSync(settings: { conversations: number; longShare: number; longTurns: number }, workDir: string, log: (s: string) => void): Promise<LongSyncResult> {
  const { conversations, longShare, longTurns } = settings;
  log(`realdata: a simulator with ${conversations} conversations, ${longShare * 100}% of ${longTurns} turns`);
  const sim = await startSimChild({ seed: 31, conversations, rateLimit: HIGH_LIMIT, realData: { long: longShare, longTurns: [longTurns, longTurns] } });
  const dbPath = join(workDir, 'realdata-long.duckdb');
  rmSync(dbPath, { force: true });
  try {
    log('realdata: flat-out sync');
    const run = await runSyncChild({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    const stored = await Database.with(dbPath, (db) =>
      db.one<{ bytes: number; turns: number; long: number }>(
        `SELECT (SELECT max(n) FROM (SELECT octet_length(encode(body)) AS n FROM raw_conversations WHERE body IS NOT NULL
                  UNION ALL SELECT sum(octet_length(encode(text))) FROM raw_conversation_parts GROUP BY id))::BIGINT AS bytes,
                (SELECT count(*) FROM transcript_turns)::BIGINT AS turns,
                (SELECT count(*) FROM (SELECT conversation_id FROM transcript_turns GROUP BY ALL HAVING count(*) >= ${longTurns}))::BIGINT AS long`,
      ),
    );
    return {
      conversations,
      longConversations: Number(stored?.long ?? 0),
      longTurns,
      seconds: run.wallSec,
      maxRssMb: run.maxRssMb,
      cpuSec: run.userCpuSec + run.systemCpuSec,
      status: run.summary.status,
      detailsFetched: run.summary.detailsFetched,
      largestBodyMb: Number(stored?.bytes ?? 0) / 1e6,
      turnsStored: Number(stored?.turns ?? 0),
    };
  } finally {
    await sim.close();
  }
}

/** One random mix, as the property test draws it, synced twice (the second run after two stored conversations vanish). */
async function mix(seed: number, dbPath: string): Promise<MixResult> {
  const rng = new Rng(seed);
  const realData = { long: rng.next() * 0.05, longTurns: [1_000, 4_000] as [number, number], text: 0.05 + rng.next() * 0.25, drift: 0.05 + rng.next() * 0.25, deleted: rng.next() * 0.08 };
  const sim = await startSimulator({ seed, conversations: 120, rateLimit: HIGH_LIMIT, realData, logRequests: false });
  rmSync(dbPath, { force: true });
  try {
    const ids = sim.dataset.conversations.map((c) => c.id);
    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, writerMemoryLimit: seed % 2 === 1 ? '12MB' : undefined });
    const stored = ids.filter((id) => ['exact', 'coerced'].includes(sim.realData.truth(id).expect) && sim.dataset.record(id)!.summary.outcome !== null);
    sim.realData.vanish([stored[Math.floor(rng.next() * stored.length)]!, stored.at(-1)!]);
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, full: true });
    const truth = new Map(ids.map((id) => [id, sim.realData.truth(id).expect]));
    const count = (e: string) => [...truth.values()].filter((t) => t === e).length;
    const states = await Database.with(dbPath, (db) =>
      db.all<{ id: string; state: string }>(
        `SELECT c.id, CASE WHEN x.id IS NOT NULL THEN 'deleted' ELSE r.detail_state END AS state
         FROM conversations c LEFT JOIN raw_conversations r USING (id) LEFT JOIN deleted_conversations x USING (id)`,
      ),
    );
    const wrong = states.filter((s) => truth.get(s.id) !== s.state && !(truth.get(s.id) === 'exact' && s.state === null));
    const problem =
      first.status !== 'ok' || second.status !== 'ok'
        ? `runs ended ${first.status}, ${second.status}`
        : states.length !== ids.length
          ? `${states.length} conversations stored of ${ids.length}`
          : wrong.length > 0
            ? `${wrong.length} conversations in another state than their truth (${wrong[0]!.id}: ${wrong[0]!.state}, truth ${truth.get(wrong[0]!.id)})`
            : null;
    return {
      seed,
      listed: ids.length,
      exact: count('exact'),
      coerced: count('coerced'),
      setAside: count('set_aside'),
      deleted: count('deleted'),
      statuses: `${first.status}, ${second.status}`,
      ok: problem === null,
      problem,
    };
  } finally {
    await sim.close();
  }
}
