// Recordings owed by earlier runs, over real HTTP: a `--full` backfill logs its progress with an
// ETA from the key's budget (each owed recording costs one Get conversation); --recordings-bandwidth
// caps every download of the run; a `.part` a killed backfill left for a conversation no later
// run retries is removed by the next complete run.
import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { runCli, startCli } from './support/cli.js';
import { filesUnder } from './support/files-under.js';
import { scratch } from './support/scratch.js';

const { simulator: sim, fileDir } = scratch('recordings-backfill', { rateLimit: 100_000 });

const envFor = (s: Simulator, db: string) => ({ CONVODUCK_BASE_URL: s.baseUrl, CONVODUCK_API_KEY: s.apiKey, CONVODUCK_DB: db });

const stored = (db: string) =>
  Database.with(db, (d) => d.all<{ conversation_id: string; state: string; sha256: string | null }>(`SELECT conversation_id, state, sha256 FROM recordings ORDER BY 1`), { readOnly: true });

describe('recordings owed by earlier runs', () => {
  it('a --full backfill logs its progress, and an ETA from the key’s budget, at least every 5 s', async () => {
    const s = await sim({ seed: 47, conversations: 60, days: 20 });
    const db = join(fileDir(), 'progress.duckdb');
    const out = join(fileDir(), 'progress');
    const plain = await runCli(['sync'], envFor(s, db));
    expect(plain.code, plain.stderr).toBe(0);
    const owed = [...s.recordingTruth().values()].filter((t) => t.kind !== 'missing').length;
    expect(owed).toBeGreaterThan(30);

    // a key of 6 requests per 2 s: the fresh links set the backfill's pace
    s.setOptions({ rateLimit: 6, windowMs: 2_000 });
    const from = s.requestLog.length;
    const run = await runCli(['sync', '--recordings', out, '--full'], { ...envFor(s, db), CONVODUCK_RATE_WINDOW_MS: '2000' });
    expect(run.code, run.stderr).toBe(0);
    const renewals = s.requestLog.slice(from).filter((r) => r.kind === 'conversation_detail');
    expect(renewals.length).toBeGreaterThanOrEqual(s.recordingTruth().size);
    const lastRenewal = Math.max(...renewals.map((r) => r.t));

    // stderr is no terminal: plain lines, each stamped with its time
    const lines = run.stderr
      .split('\n')
      .map((l) => /^(\S+Z) recordings (\d+)\/(\d+) · .*?(?: · ETA (?:(\d+)m)?(\d+)s)?$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({ at: Date.parse(m[1]!), done: Number(m[2]), total: Number(m[3]), eta: m[5] === undefined ? null : Number(m[4] ?? 0) * 60 + Number(m[5]) }));
    expect(lines.length, run.stderr).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < lines.length; i++) {
      expect(lines[i]!.at - lines[i - 1]!.at).toBeLessThanOrEqual(6_000);
      expect(lines[i]!.done).toBeGreaterThanOrEqual(lines[i - 1]!.done);
    }
    expect(lines.at(-1)!.total).toBe(s.recordingTruth().size);
    expect(lines.at(-1)!.done).toBeGreaterThan(0);
    // the ETA is the time until the last fresh link is asked for: loosely the time really left
    const judged = lines.filter((l) => l.eta !== null && lastRenewal - l.at >= 2_000);
    expect(judged.length, run.stderr).toBeGreaterThan(0);
    for (const l of judged) {
      const left = (lastRenewal - l.at) / 1000;
      expect(l.eta!, `ETA ${l.eta} s with ${left} s left`).toBeGreaterThanOrEqual(left / 4 - 2);
      expect(l.eta!, `ETA ${l.eta} s with ${left} s left`).toBeLessThanOrEqual(left * 4 + 2);
    }
    expect((await stored(db)).filter((r) => r.state === 'stored').length).toBe(owed);
  }, 180_000);

  it('--recordings-bandwidth caps the downloads: N bytes at C per second take about N / C seconds', async () => {
    const s = await sim({ seed: 48, conversations: 50, days: 5 });
    const db = join(fileDir(), 'bandwidth.duckdb');
    const out = join(fileDir(), 'bandwidth');
    const plain = await runCli(['sync'], envFor(s, db));
    expect(plain.code, plain.stderr).toBe(0);
    const truth = [...s.recordingTruth().values()].filter((t) => t.kind !== 'missing');
    const bytes = truth.reduce((n, t) => n + t.bytes, 0);
    // six seconds' worth; the cap lets one second's worth run ahead
    const cap = Math.round(bytes / 6);
    const from = s.requestLog.length;
    const run = await runCli(['sync', '--recordings', out, '--full', '--recordings-bandwidth', `${cap}B/s`], envFor(s, db));
    expect(run.code, run.stderr).toBe(0);
    const firstAsked = Math.min(...s.requestLog.slice(from).filter((r) => r.kind === 'recording').map((r) => r.t));
    const lastDone = await Database.with(db, (d) => d.one<{ ms: number }>(`SELECT epoch_ms(max(downloaded_at))::DOUBLE AS ms FROM recordings`), { readOnly: true });
    const seconds = (lastDone!.ms - firstAsked) / 1000;
    expect(seconds, `${bytes} bytes at ${cap} B/s in ${seconds} s`).toBeGreaterThanOrEqual(0.8 * (bytes / cap - 1));
    const rows = await stored(db);
    expect(rows.filter((r) => r.state === 'stored').map((r) => r.sha256).sort()).toEqual(truth.map((t) => t.sha256).sort());
  }, 120_000);

  it('refuses a bandwidth that is not a rate, or one with no recordings to cap, in one line and stores nothing', async () => {
    const s = await sim({ seed: 49, conversations: 10, days: 2 });
    for (const [args, message] of [
      [['--recordings', join(fileDir(), 'never'), '--recordings-bandwidth', 'fast'], /^convoduck: --recordings-bandwidth "fast" is not a rate — give bytes per second, e.g. 5MB\/s/],
      [['--recordings-bandwidth', '5MB/s'], /^convoduck: --recordings-bandwidth caps the downloads of recordings, and none are on — add --recordings DIR/],
    ] as const) {
      const db = join(fileDir(), 'refused.duckdb');
      const res = await runCli(['sync', ...args], envFor(s, db));
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
      expect(existsSync(db)).toBe(false);
    }
    expect(s.requestLog).toEqual([]);
  }, 60_000);

  it('a .part a killed backfill left, for a conversation past the retry window, goes with the next complete run', async () => {
    const s = await sim({ seed: 50, conversations: 40, days: 20, recordings: { slow: 1, slowBytesPerSecond: 3_000 } });
    const db = join(fileDir(), 'parts.duckdb');
    const out = join(fileDir(), 'parts');
    // synced without recordings; then the last 7 days' recordings, then a backfill of the older ones, killed mid-download
    const plain = await runCli(['sync'], envFor(s, db));
    expect(plain.code, plain.stderr).toBe(0);
    const recent = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(recent.code, recent.stderr).toBe(0);
    const { child, done } = startCli(['sync', '--recordings', out, '--full'], envFor(s, db));
    const deadline = Date.now() + 60_000;
    while (filesUnder(out).filter((f) => f.endsWith('.part')).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGKILL');
    await done;
    const parts = filesUnder(out).filter((f) => f.endsWith('.part'));
    expect(parts.length).toBeGreaterThanOrEqual(2);
    // each of a conversation past the retry window (7 days), which a run without --full does not retry
    const startedMs = (part: string) => Date.parse(s.dataset.record(part.split('/')[2]!.replace(/\.part$/, ''))!.summary.started_at!);
    for (const p of parts) expect(startedMs(p), p).toBeLessThan(Date.now() - 7 * 86_400_000);
    // all but one last written an hour ago: the one just written could be another process's download
    const [fresh, ...left] = parts;
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const p of left) utimesSync(join(out, p), hourAgo, hourAgo);

    const next = await runCli(['sync', '--recordings', out], envFor(s, db));
    expect(next.code, next.stderr).toBe(0);
    const after = filesUnder(out).filter((f) => f.endsWith('.part'));
    expect(after).toEqual([fresh]);
  }, 120_000);
});
