// Broken and hostile detail responses: a body that was JSON but no usable conversation is set
// aside (kept raw, with its reason), so is one over the size limit (not kept); one that was no
// JSON at all is a clear recorded error for that conversation; the run goes on, and nothing else
// is affected.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOSTILE_KINDS, startSimulator, type HostileKind, type Simulator } from '../src/simulator/index.js';
import { sync, type SyncSummary } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatches } from './support/store-vs-simulator.js';

/** Kinds whose body is JSON but not a usable conversation: kept raw, set aside with the reason
 *  (invalid_utf8: its bytes read as U+FFFD, the id no longer matches). */
const KEPT_RAW: HostileKind[] = ['transcript_object', 'bad_date', 'deep', 'invalid_utf8'];
/** Kinds set aside without their body (over the size limit). */
const NOT_KEPT: HostileKind[] = ['huge'];
const SET_ASIDE = [...KEPT_RAW, ...NOT_KEPT];
/** Kinds whose body is coerced by a documented rule and stored. */
const COERCED: HostileKind[] = ['string_number'];
/** Kinds that are no JSON body at all: a recorded error, asked again by the next run. */
const FAILING = HOSTILE_KINDS.filter((k) => !SET_ASIDE.includes(k) && !COERCED.includes(k));

interface HostileRun {
  sim: Simulator;
  dbPath: string;
  /** the conversation broken in each way */
  broken: Map<HostileKind, string>;
  summary: SyncSummary;
}

const { fileDir } = scratch('hostile');
const cleanups: (() => Promise<void>)[] = [];

afterAll(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A simulator with one conversation broken in each hostile way, synced once into a new database. */
async function hostileRun(): Promise<HostileRun> {
  const sim = await startSimulator({ seed: 51, conversations: 300, rateLimit: 100_000 });
  const dir = fileDir('run');
  cleanups.push(() => sim.close());
  const dbPath = join(dir, 'hostile.duckdb');
  const broken = new Map<HostileKind, string>();
  const finished = sim.dataset.conversations.filter((c) => c.outcome !== null);
  HOSTILE_KINDS.forEach((kind, i) => {
    const id = finished[10 + i * 7]!.id;
    broken.set(kind, id);
    sim.breakConversation(id, kind);
  });
  const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, timeoutMs: 1_500, maxRetries: 1 });
  return { sim, dbPath, broken, summary };
}

// Tests that only look share one run, made by whichever of them comes first; a test that
// changes the simulator or the database makes its own.
let shared: Promise<HostileRun> | undefined;
const sharedRun = (): Promise<HostileRun> => (shared ??= hostileRun());

describe('hostile responses', () => {
  it('finish the run with one recorded error per conversation that sent no JSON', async () => {
    const { sim, dbPath, broken, summary } = await sharedRun();
    expect(summary.status).toBe('errors');
    expect(summary.detailsFetched).toBe(300 - broken.size + COERCED.length);
    expect(summary.detailsCoerced).toBe(COERCED.length);
    expect(summary.detailsSetAside).toBe(SET_ASIDE.length);
    expect(summary.errors).toBe(FAILING.length);
    const db = await Database.open(dbPath, { readOnly: true });
    const errors = await db.all<{ conversation_id: string; message: string }>(
      `SELECT conversation_id, message FROM sync_errors WHERE stage = 'detail' ORDER BY conversation_id`,
    );
    db.close();
    expect(new Set(errors.map((e) => e.conversation_id))).toEqual(new Set(FAILING.map((k) => broken.get(k))));
    const messageOf = (kind: HostileKind) => errors.find((e) => e.conversation_id === broken.get(kind))!.message;
    expect(messageOf('trickle')).toMatch(/timed out|timeout/i);
    expect(messageOf('html200')).toMatch(/not JSON|html/i);
    expect(messageOf('redirect')).toMatch(/redirect/);
    for (const e of errors) {
      expect(e.message).not.toContain(sim.apiKey);
      expect(e.message.split('\n')).toHaveLength(1);
    }
  }, 300_000);

  it('never follows a redirect with the Authorization header', async () => {
    const { sim } = await sharedRun();
    expect(sim.leakedAuthorization).toEqual([]);
  }, 300_000);

  it('keeps bodies that were JSON raw, set aside with the reason, and derives nothing from them', async () => {
    const { sim, dbPath, broken } = await sharedRun();
    const db = await Database.open(dbPath, { readOnly: true });
    const raw = await db.all<{ id: string; invalid_reason: string | null; detail_state: string }>(
      `SELECT id, invalid_reason, detail_state FROM raw_conversations WHERE invalid_reason IS NOT NULL ORDER BY id`,
    );
    const reasonOf = (kind: HostileKind) => raw.find((r) => r.id === broken.get(kind))?.invalid_reason;
    expect(reasonOf('transcript_object')).toMatch(/^transcript is an object, not a list/);
    expect(reasonOf('bad_date')).toMatch(/^started_at/);
    expect(reasonOf('deep')).toMatch(/data/);
    expect(reasonOf('invalid_utf8')).toMatch(/^id is/);
    expect(reasonOf('huge')).toMatch(/over the size limit; not kept/);
    expect(new Set(raw.map((r) => r.detail_state))).toEqual(new Set(['set_aside']));
    const coerced = await db.one<{ state: string; n: number }>(
      `SELECT detail_state AS state, (SELECT message_count FROM conversations WHERE id = $id) AS n FROM raw_conversations WHERE id = $id`,
      { id: broken.get('string_number')! },
    );
    expect(coerced).toEqual({ state: 'coerced', n: sim.dataset.detail(broken.get('string_number')!)!.message_count });
    const turns = await db.one<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM transcript_turns WHERE conversation_id IN (SELECT id FROM raw_conversations WHERE invalid_reason IS NOT NULL)`,
    );
    db.close();
    expect(raw.map((r) => r.id).sort()).toEqual(SET_ASIDE.map((k) => broken.get(k)!).sort());
    expect(turns?.n).toBe(0);
  }, 300_000);

  it('asks again for the failed ones only, the set-aside ones on --retry-set-aside, and ends exact once they heal', async () => {
    const { sim, dbPath, broken, summary } = await hostileRun();
    expect(summary.status).toBe('errors');
    for (const id of broken.values()) sim.breakConversation(id, null);
    const open = sim.dataset.conversations.filter((c) => c.outcome === null).length;
    const again = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(again.status).toBe('ok');
    expect(again.detailsFetched).toBe(FAILING.length + open);
    const asked = (id: string) => sim.requestLog.filter((r) => r.kind === 'conversation_detail' && r.path.endsWith(id)).length;
    for (const kind of SET_ASIDE) expect(asked(broken.get(kind)!), kind).toBe(1);
    const retried = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, retrySetAside: true });
    expect(retried.status).toBe('ok');
    expect(retried.detailsFetched).toBe(SET_ASIDE.length + open);
    await expectStoreMatches(dbPath, { conversations: sim.dataset.conversations, detail: (id) => sim.dataset.detail(id) });
  }, 300_000);
});
