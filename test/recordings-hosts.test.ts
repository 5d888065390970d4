// Recording hosts as they are, over real HTTP: a link answered with redirects (the last to a
// storage on a second loopback port, which must get none of our headers), a body sent chunked
// with no Content-Length, links signed in each scheme (S3, CloudFront, GCS, none), and a host
// whose clock runs an hour behind ours. Every recording stored byte-exact (SHA-256).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli } from './support/cli.js';
import { filesUnder } from './support/files-under.js';
import { scratch } from './support/scratch.js';

const { simulator: sim, fileDir } = scratch('recordings-hosts', { rateLimit: 100_000, days: 2, conversations: 8 });

const envFor = (s: Simulator, db: string) => ({ CONVODUCK_BASE_URL: s.baseUrl, CONVODUCK_API_KEY: s.apiKey, CONVODUCK_DB: db });

interface Row extends Record<string, unknown> {
  conversation_id: string;
  state: string;
  reason: string | null;
  path: string | null;
  sha256: string | null;
  attempts: number;
}

const rows = (db: string): Promise<Row[]> =>
  Database.with(db, (d) => d.all<Row>(`SELECT conversation_id, state, reason, path, sha256, attempts FROM recordings ORDER BY 1`), { readOnly: true });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const recordingRequests = (s: Simulator) => s.requestLog.filter((r) => r.kind === 'recording');

/** A sync with recordings of a fresh simulator; every recording of the truth stored byte-exact. */
async function syncStoresAll(label: string, options: SimulatorOptions): Promise<{ s: Simulator; stored: Row[]; stderr: string }> {
  const s = await sim(options);
  const db = join(fileDir(), `${label}.duckdb`);
  const out = join(fileDir(), label);
  const run = await runCli(['sync', '--recordings', out], envFor(s, db));
  expect(run.code, run.stderr).toBe(0);
  const truth = s.recordingTruth();
  expect(truth.size, label).toBeGreaterThan(2);
  const stored = await rows(db);
  expect(stored.map((r) => [r.conversation_id, r.state, r.reason]), label).toEqual([...truth.keys()].sort().map((id) => [id, 'stored', null]));
  for (const r of stored) expect(sha(r.path!), `${label} ${r.conversation_id}`).toBe(truth.get(r.conversation_id)!.sha256);
  expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
  return { s, stored, stderr: run.stderr };
}

describe('recording hosts', () => {
  it('stores every recording of a host as they are: redirected to a storage on another origin, chunked, each signing scheme, its clock an hour behind', async () => {
    const { s, stored } = await syncStoresAll('as-they-are', {
      seed: 61,
      conversations: 16,
      clockSkewSeconds: -3600,
      recordings: { signing: 'each', redirects: 3, storage: true, chunked: 1, truncated: 0.2 },
    });
    const truth = s.recordingTruth();
    expect(new Set([...truth.values()].map((t) => t.signing))).toEqual(new Set(['amz', 'cloudfront', 'goog', 'none']));
    const requests = recordingRequests(s);
    const atStorage = requests.filter((r) => r.host === 'storage');
    const atLink = requests.filter((r) => r.host === 'link');
    // each recording: its link, three hops on the same host (302, 301, 307), then one to the storage (308)
    expect(atLink.filter((r) => !r.path.includes('/r/')).length).toBe(atStorage.length);
    expect(atLink.length).toBe(atStorage.length * 4);
    expect(new Set(atLink.map((r) => r.status))).toEqual(new Set([301, 302, 307, 308]));
    // the storage's bodies were chunked; a cut one was asked for again, never stored as complete
    const cut = atStorage.filter((r) => r.fault === 'truncate').length;
    expect(cut).toBeGreaterThan(0);
    expect(stored.filter((r) => r.attempts === 2).length).toBe(cut);
    expect(atStorage.length).toBe(stored.length + cut);
    // our user-agent goes to the link's own host only; no key, nor any header of ours, to the storage
    for (const r of atLink) expect(r.headers!['user-agent']).toBe('convoduck/0.1');
    for (const r of atStorage) expect(Object.keys(r.headers!).sort()).toEqual(['connection', 'host']);
    for (const r of requests) expect(r.headers!.authorization).toBeUndefined();
    // judged on the host's clock, no link was taken for expired: the crawl's one Get conversation each, no 403
    expect(s.requestLog.filter((r) => r.kind === 'conversation_detail').length).toBe(s.dataset.records.length);
    expect(requests.filter((r) => r.status === 403)).toEqual([]);
  });

  it('gives up on a link after 5 redirects, with the reason in its row, and tries no more in the run', async () => {
    const s = await sim({ seed: 62, recordings: { redirects: 6 } });
    const db = join(fileDir(), 'loop.duckdb');
    const out = join(fileDir(), 'loop');
    const run = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const truth = s.recordingTruth();
    const stored = await rows(db);
    expect(stored.length).toBe(truth.size);
    for (const r of stored) expect([r.state, r.reason, r.attempts]).toEqual(['failed', expect.stringMatching(/^more than 5 redirects \(the last from 127\.0\.0\.1:\d+\)$/), 1]);
    expect(recordingRequests(s).length).toBe(truth.size * 6);
    expect(filesUnder(out)).toEqual([]);
    expect(run.stderr).toMatch(/convoduck: recording of \S+ not stored: more than 5 redirects/);
  });

  it('renews a link its host refuses once, whatever the host’s clock', async () => {
    const s = await sim({ seed: 66, clockSkewSeconds: -3600, recordingLinkSeconds: 0, recordings: { signing: 'each' } });
    const db = join(fileDir(), 'refused.duckdb');
    const run = await runCli(['sync', '--recordings', join(fileDir(), 'refused')], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const truth = s.recordingTruth();
    // a public link (no signature) never expires: stored; every signed one refused, renewed once, refused again
    const signed = [...truth].filter(([, t]) => t.signing !== 'none').map(([id]) => id);
    expect(signed.length).toBeGreaterThan(2);
    for (const id of signed) expect(s.requestLog.filter((r) => r.kind === 'conversation_detail' && r.path.endsWith(`/${id}`)).length, id).toBe(2);
    expect((await rows(db)).map((r) => [r.conversation_id, r.state])).toEqual([...truth].sort(([a], [b]) => a.localeCompare(b)).map(([id, t]) => [id, t.signing === 'none' ? 'stored' : 'expired']));
  });
});
