// Recordings over real HTTP: `sync --recordings DIR` downloads every recording the simulator's
// truth holds, byte-exact (SHA-256), into DIR/space/day/id.wav; a link already expired costs one
// fresh detail request and no more; a body cut mid-way is tried again and never stored as
// complete; a sync killed mid-download leaves only a .part file and the next run completes it;
// forget and retention remove the files.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli, startCli } from './support/cli.js';
import { filesUnder } from './support/files-under.js';
import { scratch } from './support/scratch.js';

const { simulator: sim, fileDir } = scratch('recordings', { rateLimit: 100_000, days: 3 });

const envFor = (s: Simulator, db: string) => ({ CONVODUCK_BASE_URL: s.baseUrl, CONVODUCK_API_KEY: s.apiKey, CONVODUCK_DB: db });

interface Row extends Record<string, unknown> {
  conversation_id: string;
  state: string;
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  duration_seconds: number | null;
  attempts: number;
}

const rows = (db: string): Promise<Row[]> =>
  Database.with(db, (d) => d.all<Row>(`SELECT conversation_id, state, path, bytes::INTEGER AS bytes, sha256, duration_seconds, attempts FROM recordings ORDER BY 1`), { readOnly: true });

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const detailRequests = (s: Simulator, from: number, id: string) =>
  s.requestLog.slice(from).filter((r) => r.kind === 'conversation_detail' && r.path.endsWith(`/${id}`)).length;

describe('sync --recordings', () => {
  it('stores every recording byte-exact in the first run; cut ones are tried again, missing ones recorded', async () => {
    const s = await sim({ seed: 41, conversations: 60, recordings: { truncated: 0.25, missing: 0.15, slow: 0.1, slowBytesPerSecond: 40_000 } });
    const db = join(fileDir(), 'first.duckdb');
    const out = join(fileDir(), 'first');
    const run = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);

    const truth = s.recordingTruth();
    const kinds = [...truth.values()].map((t) => t.kind);
    expect(kinds.filter((k) => k === 'truncated').length).toBeGreaterThan(2);
    expect(kinds.filter((k) => k === 'missing').length).toBeGreaterThan(0);
    const stored = await rows(db);
    expect(stored.map((r) => r.conversation_id)).toEqual([...truth.keys()].sort());
    for (const r of stored) {
      const t = truth.get(r.conversation_id)!;
      if (t.kind === 'missing') {
        expect(r.state).toBe('missing');
        continue;
      }
      expect(r.state, r.conversation_id).toBe('stored');
      const started = s.dataset.record(r.conversation_id)!.summary.started_at!;
      expect(relative(out, r.path!)).toBe(join(s.space, new Date(started).toISOString().slice(0, 10), `${r.conversation_id}.wav`));
      expect(sha(r.path!)).toBe(t.sha256);
      expect(r.sha256).toBe(t.sha256);
      expect(r.bytes).toBe(t.bytes);
      expect(r.duration_seconds).toBe(t.durationSeconds);
      // a cut body was asked for again
      expect(r.attempts).toBe(t.kind === 'truncated' ? 2 : 1);
    }
    // nothing but the complete files (no .part), and the recording host took no key budget
    expect(filesUnder(out)).toEqual(stored.filter((r) => r.state === 'stored').map((r) => relative(out, r.path!)).sort());
    const cut = s.requestLog.filter((r) => r.kind === 'recording' && r.fault === 'truncate');
    expect(cut.length).toBe(kinds.filter((k) => k === 'truncated').length);
    const runs = await Database.with(db, (d) => d.one<{ requests: number }>(`SELECT requests::INTEGER AS requests FROM sync_runs`), { readOnly: true });
    expect(runs!.requests).toBe(s.requestLog.filter((r) => r.kind !== 'recording').length);

    const status = await runCli(['status'], { CONVODUCK_DB: db });
    expect(status.code, status.stderr).toBe(0);
    const missing = kinds.filter((k) => k === 'missing').length;
    expect(status.stdout).toContain(`recordings: ${truth.size} expected, ${truth.size - missing} stored, ${missing} missing, 0 expired`);
    // the coverage report counts them per day, as the truth has them
    const reports = join(fileDir(), 'first-reports');
    const report = await runCli(['report', 'coverage', '--out', reports, '--format', 'json'], { CONVODUCK_DB: db });
    expect(report.code, report.stderr).toBe(0);
    const days = JSON.parse(readFileSync(join(reports, 'coverage.json'), 'utf8')) as Record<string, number>[];
    const sum = (col: string) => days.reduce((n, d) => n + Number(d[col]), 0);
    expect([sum('recordings_expected'), sum('recordings_stored'), sum('recordings_missing'), sum('recordings_expired')]).toEqual([truth.size, truth.size - missing, missing, 0]);
  }, 120_000);

  it('stores recordings of megabytes byte-exact, and says nothing of them on stderr but its counts', async () => {
    const s = await sim({ seed: 51, conversations: 10, recordings: { extraSeconds: 150 } });
    const db = join(fileDir(), 'large.duckdb');
    const out = join(fileDir(), 'large');
    const run = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const truth = s.recordingTruth();
    expect(Math.min(...[...truth.values()].map((t) => t.bytes))).toBeGreaterThan(1_000_000);
    const stored = await rows(db);
    expect(stored.map((r) => [r.conversation_id, r.state, sha(r.path!)])).toEqual([...truth].map(([id, t]) => [id, 'stored', t.sha256]).sort());
    // no warning of a leak (one listener per chunk of a long file), nothing but the crawl's own lines
    expect(run.stderr).not.toMatch(/Warning|Error/);
  }, 120_000);

  it('renews a link that expired before its download with one detail request, then stores it on a later run', async () => {
    const s = await sim({ seed: 42, conversations: 40, recordingLinkSeconds: 0 });
    const db = join(fileDir(), 'expired.duckdb');
    const out = join(fileDir(), 'expired');
    const run = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const truth = s.recordingTruth();
    expect(truth.size).toBeGreaterThan(5);
    // every link is dead on arrival: the crawl's detail request, and exactly one more for a new link
    for (const id of truth.keys()) expect(detailRequests(s, 0, id), id).toBe(2);
    const withoutRecording = s.dataset.records.find((r) => !truth.has(r.id))!;
    expect(detailRequests(s, 0, withoutRecording.id)).toBe(1);
    expect((await rows(db)).map((r) => r.state)).toEqual([...truth.keys()].map(() => 'expired'));
    expect(filesUnder(out)).toEqual([]);

    // links that live: the next run fetches what is owed, one fresh link each
    s.setOptions({ recordingLinkSeconds: 300 });
    const from = s.requestLog.length;
    const again = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(again.code, again.stderr).toBe(0);
    for (const id of truth.keys()) expect(detailRequests(s, from, id), id).toBe(1);
    const after = await rows(db);
    expect(after.every((r) => r.state === 'stored' && sha(r.path!) === truth.get(r.conversation_id)!.sha256)).toBe(true);
  }, 120_000);

  it('a sync killed mid-download leaves only a .part file; the next run completes every recording', async () => {
    const s = await sim({ seed: 43, conversations: 16, recordings: { slow: 1, slowBytesPerSecond: 4_000 } });
    const db = join(fileDir(), 'killed.duckdb');
    const out = join(fileDir(), 'killed');
    const { child, done } = startCli(['sync', '--recordings', out], envFor(s, db));
    const deadline = Date.now() + 60_000;
    while (!filesUnder(out).some((f) => f.endsWith('.part')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await done;
    const left = filesUnder(out);
    expect(left.some((f) => f.endsWith('.part'))).toBe(true);
    // what the database calls stored is complete; a .part is never taken for a recording
    const truth = s.recordingTruth();
    if (existsSync(db)) for (const r of await rows(db)) if (r.state === 'stored') expect(sha(r.path!)).toBe(truth.get(r.conversation_id)!.sha256);

    const again = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(again.code, again.stderr).toBe(0);
    const after = await rows(db);
    expect(after.map((r) => r.conversation_id)).toEqual([...truth.keys()].sort());
    for (const r of after) expect(sha(r.path!)).toBe(truth.get(r.conversation_id)!.sha256);
    expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
  }, 120_000);

  it('backfills a database synced without recordings: --full fetches one fresh link per recording, oldest included', async () => {
    const s = await sim({ seed: 45, conversations: 40, days: 20 });
    const db = join(fileDir(), 'backfill.duckdb');
    const out = join(fileDir(), 'backfill');
    const plain = await runCli(['sync'], envFor(s, db));
    expect(plain.code, plain.stderr).toBe(0);
    expect(existsSync(out)).toBe(false);
    const truth = s.recordingTruth();
    // a plain run with recordings fetches only what is recent (the last 7 days)
    const recent = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(recent.code, recent.stderr).toBe(0);
    const weekAgo = Date.now() - 7 * 86_400_000;
    const firstRows = await rows(db);
    expect(firstRows.length).toBeGreaterThan(0);
    expect(firstRows.length).toBeLessThan(truth.size);
    for (const r of firstRows) expect(Date.parse(s.dataset.record(r.conversation_id)!.summary.started_at!)).toBeGreaterThan(weekAgo - 60_000);
    // the rest, finished long ago: one fresh link each, and nothing more
    const owed = [...truth.keys()].filter((id) => !firstRows.some((r) => r.conversation_id === id));
    const from = s.requestLog.length;
    const backfill = await runCli(['sync', '--recordings', out, '--full'], envFor(s, db));
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stderr).toContain(`recordings of ${s.space}: ${owed.length} owed by earlier runs`);
    for (const id of owed) expect(detailRequests(s, from, id), id).toBe(1);
    const after = await rows(db);
    expect(after.map((r) => r.conversation_id)).toEqual([...truth.keys()].sort());
    for (const r of after) expect(sha(r.path!)).toBe(truth.get(r.conversation_id)!.sha256);
  }, 120_000);

  it('a confidential space has no recordings', async () => {
    const s = await sim({ seed: 46, conversations: 20, confidential: true });
    const db = join(fileDir(), 'confidential.duckdb');
    const out = join(fileDir(), 'confidential');
    const run = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    expect(s.recordingTruth().size).toBe(0);
    expect(await rows(db)).toEqual([]);
    expect(filesUnder(out)).toEqual([]);
    expect(s.requestLog.filter((r) => r.kind === 'recording')).toEqual([]);
  }, 60_000);

  it('forget and retention delete the recording files, and the erasure log says so', async () => {
    const s = await sim({ seed: 44, conversations: 40, days: 10 });
    const db = join(fileDir(), 'erase.duckdb');
    const out = join(fileDir(), 'erase');
    const run = await runCli(['sync', '--recordings', out, '--full'], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const stored = await rows(db);
    expect(stored.length).toBeGreaterThan(4);
    const one = stored[0]!;
    const forget = await runCli(['forget', '--id', one.conversation_id], { CONVODUCK_DB: db });
    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stderr).toContain('forget: deleted 1 recording file of them');
    expect(existsSync(one.path!)).toBe(false);

    // retention's cutoff is 5 days before its own now, somewhere between these two
    const startedMs = (id: string) => Date.parse(s.dataset.record(id)!.summary.started_at!);
    const olderThan5Days = (at: number) => stored.filter((r) => r !== one && startedMs(r.conversation_id) < at - 5 * 86_400_000).map((r) => r.conversation_id);
    const before = Date.now();
    const retain = await runCli(['sync', '--recordings', out, '--retain-days', '5'], envFor(s, db));
    expect(retain.code, retain.stderr).toBe(0);
    const [surely, atMost] = [olderThan5Days(before), olderThan5Days(Date.now())];
    expect(surely.length).toBeGreaterThan(0);
    const log = await Database.with(db, (d) => d.all<{ id: string; recording_deleted: boolean }>(`SELECT id, recording_deleted FROM erasures ORDER BY id`), { readOnly: true });
    const deleted = log.filter((e) => e.recording_deleted).map((e) => e.id);
    expect(deleted).toEqual(expect.arrayContaining([one.conversation_id, ...surely]));
    expect([one.conversation_id, ...atMost]).toEqual(expect.arrayContaining(deleted));
    for (const r of stored) if (deleted.includes(r.conversation_id)) expect(existsSync(r.path!), r.path!).toBe(false);
    const kept = (await rows(db)).filter((r) => r.state === 'stored');
    for (const r of kept) expect(existsSync(r.path!)).toBe(true);
  }, 120_000);
});
