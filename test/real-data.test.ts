// Real-world data never turns a run red: long conversations, hard text, drifting types and
// conversations deleted at the source, served by the simulator over HTTP and synced into a real
// DuckDB file. Each conversation ends stored exactly, coerced, set aside or marked deleted.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sync } from '../src/crawler/sync.js';
import { Database } from '../src/store/database.js';
import { bodiesInParts } from '../src/store/derive.js';
import { DRIFT_EXPECT, DRIFT_KINDS, type Simulator } from '../src/simulator/index.js';
import { runCli } from './support/cli.js';
import { scratch } from './support/scratch.js';
import { expectStoreMatchesTruth } from './support/store-vs-truth.js';

const { simulator, tempDb } = scratch('real-data', { rateLimit: 100_000 });

const listedIds = (sim: Simulator): string[] => sim.dataset.conversations.map((c) => c.id);
const finishedIds = (sim: Simulator): string[] => sim.dataset.conversations.filter((c) => c.outcome !== null).map((c) => c.id);
/** detail requests of this key since `from` (an index into the request log), by conversation id */
const detailRequests = (sim: Simulator, from = 0): string[] =>
  sim.requestLog
    .slice(from)
    .filter((r) => r.client === 'key' && r.kind === 'conversation_detail')
    .map((r) => r.path.split('/').at(-1)!);

describe('real data', () => {
  it('stores conversations of 1,000 and 10,000 turns and a 20 MB body exactly in the first run', async () => {
    const sim = await simulator({ seed: 61, conversations: 60 });
    const [a, b, c] = finishedIds(sim);
    sim.realData.set(a!, { long: { turns: 1_000 } });
    sim.realData.set(b!, { long: { turns: 10_000 } });
    sim.realData.set(c!, { long: { turns: 10_000, payloadBytes: 20_000_000 } });
    const dbPath = tempDb();
    const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(summary.status).toBe('ok');
    expect(summary.detailsFetched).toBe(60);
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts).toEqual({ exact: 60, coerced: 0, set_aside: 0, deleted: 0 });
    // the raw body kept as received, byte for byte (a long one in parts)
    const received = await (
      await fetch(`${sim.baseUrl}/spaces/${sim.dataset.space.slug}/conversations/${c!}`, { headers: { authorization: `Bearer ${sim.apiKey}` } })
    ).text();
    await Database.with(dbPath, async (db) => {
      const stored = await db.one<{ inline: string | null; parts: number; turns: number }>(
        `SELECT body AS inline, (SELECT count(*) FROM raw_conversation_parts WHERE id = $c)::INTEGER AS parts,
                (SELECT count(*) FROM transcript_turns WHERE conversation_id = $c)::INTEGER AS turns
         FROM raw_conversations WHERE id = $c`,
        { c: c! },
      );
      expect(stored?.inline).toBeNull();
      expect(stored?.parts).toBeGreaterThan(1);
      expect(stored?.turns).toBe(10_000);
      const body = (await bodiesInParts(db, [c!])).get(c!)!;
      expect(body.length).toBe(received.length);
      expect(body === received).toBe(true);
      expect(Buffer.byteLength(body)).toBe(sim.realData.truth(c!).long!.bodyBytes);
      expect(Buffer.byteLength(body)).toBeGreaterThan(19_000_000);
    });
    expect(existsSync(`${dbPath}.wal`)).toBe(false);
  }, 300_000);

  it('stores every hard text exactly, a string cut mid-emoji with U+FFFD, in the list page too', async () => {
    const sim = await simulator({ seed: 62, conversations: 80 });
    const ids = finishedIds(sim);
    ids.slice(0, 4).forEach((id) => sim.realData.set(id, { text: true }));
    ids.slice(4, 7).forEach((id) => sim.realData.set(id, { text: true, loneSurrogates: false }));
    const dbPath = tempDb();
    const summary = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(summary.status).toBe('ok');
    expect(summary.detailsCoerced).toBe(4);
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts).toEqual({ exact: 76, coerced: 4, set_aside: 0, deleted: 0 });
    await Database.with(dbPath, async (db) => {
      const drift = await db.all<{ kind: string; note: string; n: number }>(
        `SELECT kind, note, count(DISTINCT conversation_id)::INTEGER AS n FROM detail_drift GROUP BY ALL`,
      );
      expect(drift).toEqual([{ kind: 'coerced', note: 'lone UTF-16 surrogate → U+FFFD', n: 4 }]);
    });
  }, 300_000);

  it('coerces drift that is unambiguous, sets aside what is not with its reason, and asks for neither again', async () => {
    const sim = await simulator({ seed: 63, conversations: 90 });
    const ids = finishedIds(sim);
    DRIFT_KINDS.forEach((kind, i) => sim.realData.set(ids[i * 3]!, { drift: [kind] }));
    const dbPath = tempDb();
    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(first.status).toBe('ok');
    const kinds = (e: string) => DRIFT_KINDS.filter((k) => DRIFT_EXPECT[k] === e).length;
    expect(first.detailsSetAside).toBe(kinds('set_aside'));
    expect(first.detailsCoerced).toBe(kinds('coerced'));
    expect(first.configBodiesCoerced).toBe(0);
    expect(first.errors).toBe(0);
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts.set_aside).toBe(kinds('set_aside'));
    expect(counts.coerced).toBe(kinds('coerced'));

    const before = sim.requestLog.length;
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(second.status).toBe('ok');
    const finished = new Set(ids);
    expect(detailRequests(sim, before).filter((id) => finished.has(id))).toEqual([]);

    const out = join(dirname(dbPath), 'reports');
    const report = await runCli(['report', 'api_drift', '--format', 'json', '--out', out, '--db', dbPath]);
    expect(report.code, report.stderr).toBe(0);
    {
      const rows = JSON.parse(readFileSync(join(out, 'api_drift.json'), 'utf8')) as { path: string; kind: string; conversations: number; config_bodies: number | null }[];
      // a configuration as the spec says: no configuration row
      expect(rows.filter((r) => r.config_bodies !== null)).toEqual([]);
      const reasons = rows.map((r) => ({ path: r.path, kind: r.kind, conversations: Number(r.conversations) }));
      expect(reasons).toContainEqual({ path: 'sentiment_v2', kind: 'unknown_field', conversations: 1 });
      expect(reasons).toContainEqual({ path: 'transcript[].confidence', kind: 'unknown_field', conversations: 1 });
      expect(reasons).toContainEqual({ path: 'outcome', kind: 'unknown_value', conversations: 1 });
      expect(reasons.filter((r) => r.kind === 'set_aside').reduce((n, r) => n + r.conversations, 0)).toBe(kinds('set_aside'));
    }
  }, 300_000);

  it('sets aside a body that does not parse, reads bytes that are not UTF-8 as U+FFFD, and asks for neither again', async () => {
    const sim = await simulator({ seed: 66, conversations: 40 });
    const [notJson, notUtf8] = finishedIds(sim);
    sim.realData.set(notJson!, { broken: 'invalid_json' });
    sim.realData.set(notUtf8!, { broken: 'invalid_utf8' });
    const dbPath = tempDb();
    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, maxRetries: 1 });
    expect(first).toMatchObject({ status: 'ok', detailsSetAside: 1, detailsCoerced: 1, errors: 0 });
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts).toMatchObject({ set_aside: 1, coerced: 1 });
    await Database.with(dbPath, async (db) => {
      const kept = await db.one<{ body: string; invalid_reason: string }>(`SELECT body, invalid_reason FROM raw_conversations WHERE id = ?`, [notJson!]);
      expect(kept?.invalid_reason).toMatch(/^body is not valid JSON \(/);
      expect(kept?.body).toContain('\u0001');
      const drift = await db.all<{ note: string }>(`SELECT note FROM detail_drift WHERE conversation_id = ? AND kind = 'coerced'`, [notUtf8!]);
      expect(drift.map((d) => d.note)).toEqual(['byte not UTF-8 → U+FFFD']);
    });
    const before = sim.requestLog.length;
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(second.status).toBe('ok');
    expect(detailRequests(sim, before).filter((id) => id === notJson || id === notUtf8)).toEqual([]);
  }, 300_000);

  it('sets aside a detail that does not fit even the raised memory cap, its raw body kept; --retry-set-aside stores it later', async () => {
    const sim = await simulator({ seed: 67, conversations: 30 });
    const long = finishedIds(sim)[0]!;
    sim.realData.set(long, { long: { turns: 10_000 } });
    const dbPath = tempDb();
    // caps far under what the usual ones allow, so that this conversation cannot be written as rows
    const caps = { writerMemoryLimit: '12MB', raisedMemoryLimit: '16MB' };
    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, ...caps });
    expect(first).toMatchObject({ status: 'ok', errors: 0 });
    // under caps this small a short detail may fail too: the summary counts exactly what was set aside
    expect(first.detailsSetAside).toBeGreaterThanOrEqual(1);
    expect(first.detailsFetched + first.detailsSetAside).toBe(30);
    const received = await (
      await fetch(`${sim.baseUrl}/spaces/${sim.dataset.space.slug}/conversations/${long}`, { headers: { authorization: `Bearer ${sim.apiKey}` } })
    ).text();
    await Database.with(dbPath, async (db) => {
      const kept = await db.one<{ reason: string; turns: number; counted: number; unstorable: number }>(
        `SELECT invalid_reason AS reason, (SELECT count(*) FROM transcript_turns WHERE conversation_id = $id)::INTEGER AS turns,
                (SELECT details_set_aside FROM sync_runs ORDER BY run_id DESC LIMIT 1) AS counted,
                (SELECT count(*) FROM raw_conversations WHERE starts_with(invalid_reason, 'could not be stored'))::INTEGER AS unstorable
         FROM raw_conversations WHERE id = $id`,
        { id: long },
      );
      expect(kept?.unstorable).toBe(first.detailsSetAside);
      expect(kept?.reason).toMatch(/^could not be stored: Out of Memory Error: [^\n]*; under a raised cap \(16MB\): /);
      expect(kept?.turns).toBe(0);
      expect(kept?.counted).toBe(first.detailsSetAside);
      // the recording URL is signed afresh on every request: the rest must be the very bytes received
      const unsigned = (body: string) => body.replace(/X-Amz-Date=\w+&/, '').replace(/X-Amz-Signature=\w+/, '');
      const kept2 = (await bodiesInParts(db, [long])).get(long)!;
      expect(kept2.length).toBe(received.length);
      expect(unsigned(kept2) === unsigned(received)).toBe(true);
    });
    const before = sim.requestLog.length;
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    expect(detailRequests(sim, before)).not.toContain(long);
    // under the usual caps, asked again on purpose: stored exactly
    const retried = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, retrySetAside: true });
    expect(retried).toMatchObject({ status: 'ok', detailsSetAside: 0 });
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts).toEqual({ exact: 30, coerced: 0, set_aside: 0, deleted: 0 });
  }, 300_000);

  it('marks a conversation whose detail answers 404 deleted: both runs exit 0, the second never asks for it', async () => {
    const sim = await simulator({ seed: 64, conversations: 70 });
    const gone = finishedIds(sim).slice(0, 3);
    for (const id of gone) sim.realData.set(id, { deleted: true });
    const dbPath = tempDb();
    const env = { CONVODUCK_BASE_URL: sim.baseUrl, CONVODUCK_API_KEY: sim.apiKey, CONVODUCK_DB: dbPath };
    const first = await runCli(['sync', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'ok', conversationsDeleted: 3, errors: 0 });
    expect(first.stderr).toMatch(/3 conversations deleted at the source/);
    const before = sim.requestLog.length;
    const second = await runCli(['sync', '--json'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(detailRequests(sim, before).filter((id) => gone.includes(id))).toEqual([]);
    const counts = await expectStoreMatchesTruth(dbPath, sim, listedIds(sim));
    expect(counts.deleted).toBe(3);
    const status = await runCli(['status', '--json'], env);
    const open = sim.dataset.conversations.length - finishedIds(sim).length;
    expect(JSON.parse(status.stdout).details).toMatchObject({ deleted: 3, pending: 0, missing: 0 });
    expect(JSON.parse(status.stdout).openConversations.count).toBe(open);
  }, 300_000);

  it('loses no surviving conversation when deletions shift the pages of a listing', async () => {
    const sim = await simulator({ seed: 65, conversations: 650 });
    const all = listedIds(sim);
    // once the first page is served, five conversations it held vanish: every later page shifts
    const vanished = all.slice(150, 155);
    let pages = 0;
    sim.setOptions({
      onRequest: (entry) => {
        if (entry.kind === 'conversation_list' && entry.status === 200 && ++pages === 1) sim.realData.vanish(vanished);
      },
    });
    const dbPath = tempDb();
    const first = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(pages).toBeGreaterThan(3);
    expect(first.conversationsDeleted).toBe(5);
    const survivors = all.filter((id) => !vanished.includes(id));
    await Database.with(dbPath, async (db) => {
      const stored = await db.all<{ id: string }>(`SELECT id FROM raw_conversations WHERE invalid_reason IS NULL`);
      expect(new Set(stored.map((r) => r.id))).toEqual(new Set(survivors));
    });
    const second = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath });
    expect(second.status).toBe('ok');
    await expectStoreMatchesTruth(dbPath, sim, all);
  }, 300_000);

  it('marks a stored conversation missing from a window listed again deleted, and never asks for it', async () => {
    const sim = await simulator({ seed: 66, conversations: 120 });
    const dbPath = tempDb();
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath })).status).toBe('ok');
    const vanished = finishedIds(sim).slice(10, 14);
    sim.realData.vanish(vanished);
    const again = await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, full: true });
    expect(again.status).toBe('ok');
    expect(again.conversationsDeleted).toBe(4);
    await Database.with(dbPath, async (db) => {
      const rows = await db.all<{ id: string; reason: string }>(`SELECT id, reason FROM deleted_conversations ORDER BY id`);
      expect(rows).toEqual([...vanished].sort().map((id) => ({ id, reason: 'missing_from_listing' })));
      // what was stored stays, marked
      const kept = await db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM transcript_turns WHERE conversation_id = $id`, { id: vanished[0]! });
      expect(kept?.n).toBeGreaterThan(0);
    });
    const before = sim.requestLog.length;
    expect((await sync({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, full: true })).conversationsDeleted).toBe(0);
    expect(detailRequests(sim, before).filter((id) => vanished.includes(id))).toEqual([]);
  }, 300_000);
});
