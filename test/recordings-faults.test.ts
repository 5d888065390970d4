// Every error on the download path of recordings, injected: a recordings folder on a disk too
// small (a real tmpfs where this machine lets us mount one, else the test-only failing disk of
// the same size), a file that fails with EIO, EPIPE or ENOSPC, is destroyed mid-way or throws, a
// socket reset mid-body, an interrupt mid-download. Each time the crawl completes as
// docs/recordings.md says: every detail stored, a row with the reason, one line, the metrics
// file written, no lock nor WAL left, and never an unhandled error or a stack trace.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/index.js';
import { FILE_FAULTS, fileFault } from '../src/recordings/disk.js';
import { Database } from '../src/store/database.js';
import { runCli, startCli, type CliResult } from './support/cli.js';
import { filesUnder } from './support/files-under.js';
import { scratch } from './support/scratch.js';

const { simulator: sim, fileDir } = scratch('recordings-faults', { rateLimit: 100_000, days: 2 });

const envFor = (s: Simulator, db: string) => ({ CONVODUCK_BASE_URL: s.baseUrl, CONVODUCK_API_KEY: s.apiKey, CONVODUCK_DB: db });

interface Row extends Record<string, unknown> {
  conversation_id: string;
  state: string;
  reason: string | null;
  path: string | null;
  attempts: number;
}

const rows = (db: string): Promise<Row[]> =>
  Database.with(db, (d) => d.all<Row>(`SELECT conversation_id, state, reason, path, attempts FROM recordings ORDER BY 1`), { readOnly: true });
const details = (db: string) =>
  Database.with(db, async (d) => (await d.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM raw_conversations`))!.n, { readOnly: true });
const runStates = (db: string) =>
  Database.with(db, async (d) => (await d.all<{ status: string }>(`SELECT status FROM sync_runs ORDER BY run_id`)).map((r) => r.status), { readOnly: true });
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** What every run with a failing download must show: exit as given, no crash, nothing left behind. */
function expectCompleted(run: CliResult, db: string, metrics: string | null, code = 0): void {
  expect(run.code, run.stderr).toBe(code);
  expect(run.stderr).not.toMatch(/Unhandled|node:events|^\s+at /m);
  expect(existsSync(`${db}.sync-lock`), 'sync lock left').toBe(false);
  expect(existsSync(`${db}.wal`), 'WAL left').toBe(false);
  if (metrics !== null) expect(readFileSync(metrics, 'utf8')).toMatch(/^convoduck_/m);
}

const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) spawnSync('umount', [dir]);
});

/**
 * A folder on a disk of `bytes`: a real tmpfs where mount is allowed (root), else a folder the
 * test-only failing disk makes that small. Either way the recordings run out of room.
 */
function smallDisk(bytes: number): { dir: string; env: Record<string, string>; real: boolean } {
  const dir = fileDir('small');
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (m.status === 0) {
    mounted.push(dir);
    return { dir: join(dir, 'rec'), env: {}, real: true };
  }
  return { dir: join(dir, 'rec'), env: { CONVODUCK_TEST_RECORDINGS_DISK: `size=${bytes}` }, real: false };
}

describe('faults on the download path of recordings', () => {
  it('a recordings folder that runs out of room: one line, a row each, the crawl completes; and again with --full', async () => {
    // 12 recordings of 8–24 KB (180 KB), half of them chunked (no size to check beforehand), on a 112 KB disk
    const s = await sim({ seed: 79, conversations: 20, recordings: { chunked: 0.5 } });
    const disk = smallDisk(112 * 1024);
    const db = join(fileDir(), 'full.duckdb');
    const metrics = join(fileDir(), 'full.prom');
    const truth = s.recordingTruth();
    for (const args of [[], ['--full']]) {
      const run = await runCli(['sync', '--recordings', disk.dir, '--metrics-file', metrics, ...args], { ...envFor(s, db), ...disk.env });
      expectCompleted(run, db, metrics);
      expect(await details(db)).toBe(s.dataset.records.length);
      const stored = await rows(db);
      expect(stored.map((r) => r.conversation_id)).toEqual([...truth.keys()].sort());
      const full = stored.filter((r) => r.state === 'no_space');
      expect(stored.filter((r) => r.state === 'stored').length, `${disk.real ? 'tmpfs' : 'failing disk'}: ${run.stderr}`).toBeGreaterThan(0);
      expect(full.length).toBeGreaterThan(0);
      expect(stored.every((r) => r.state === 'stored' || r.state === 'no_space')).toBe(true);
      for (const r of full) expect(r.reason).toMatch(/^(\d+ bytes, and only \d+ free on the disk|the disk filled up while writing its (\d+|first \d+) bytes)$/);
      for (const r of stored.filter((r) => r.state === 'stored')) expect(sha(r.path!)).toBe(truth.get(r.conversation_id)!.sha256);
      // one line for the first, the count for all at the end
      expect(run.stderr.match(/^convoduck: recording of \S+ not stored: /gm)).toHaveLength(1);
      // the count of the run: a recording already stored, whose detail a later run fetches again, is downloaded again (and kept)
      const [, counted, where] = /\((\d+) for want of room on the disk of (\S+)\)/.exec(run.stderr) ?? [];
      expect(where).toBe(disk.dir);
      if (args.length === 0) expect(Number(counted)).toBe(full.length);
      else expect(Number(counted)).toBeGreaterThanOrEqual(full.length);
      expect(filesUnder(disk.dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    }
    // both ways of running out: too little room to begin, and the disk filling up mid-file
    const reasons = (await rows(db)).map((r) => r.reason ?? '');
    expect(reasons.some((r) => r.includes('free on the disk'))).toBe(true);
    expect(reasons.some((r) => r.startsWith('the disk filled up'))).toBe(true);
    expect(await runStates(db)).toEqual(['ok', 'ok']);
    const status = await runCli(['status'], { CONVODUCK_DB: db });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(/killed/);
  });

  it('a file that fails mid-way (EIO, EPIPE, ENOSPC, destroyed, throwing): a row with the reason each, the crawl completes', async () => {
    const s = await sim({ seed: 76, conversations: 12 });
    const truth = s.recordingTruth();
    const db = join(fileDir(), 'write.duckdb');
    const out = join(fileDir(), 'write');
    const metrics = join(fileDir(), 'write.prom');
    // each file fails in one of the five ways, by its name: the same on every try
    const run = await runCli(['sync', '--recordings', out, '--metrics-file', metrics], { ...envFor(s, db), CONVODUCK_TEST_RECORDINGS_DISK: 'fail=each' });
    expectCompleted(run, db, metrics);
    expect(await details(db)).toBe(s.dataset.records.length);
    const stored = await rows(db);
    expect(stored.map((r) => r.conversation_id)).toEqual([...truth.keys()].sort());
    const expected = {
      EIO: ['failed', /^cannot write \S+\.part: EIO: /],
      EPIPE: ['failed', /^cannot write \S+\.part: EPIPE: /],
      ENOSPC: ['no_space', /^the disk filled up while writing its \d+ bytes$/],
      destroy: ['failed', /^cannot write \S+\.part: the file closed before the end$/],
      throw: ['failed', /^cannot write \S+\.part: a fault thrown by the file stream$/],
    } as const;
    const seen = new Set<string>();
    for (const r of stored) {
      const fault = fileFault(`${r.conversation_id}.part`);
      seen.add(fault);
      const [state, reason] = expected[fault];
      expect([r.state, r.attempts], `${fault}: ${r.reason}`).toEqual([state, state === 'no_space' ? 1 : 3]);
      expect(r.reason, fault).toMatch(reason);
    }
    expect([...seen].sort()).toEqual([...FILE_FAULTS].sort());
    // one line for the first full disk, one for the first file that failed otherwise
    expect(run.stderr.match(/^convoduck: recording of \S+ not stored: /gm)).toHaveLength(2);
    expect(filesUnder(out)).toEqual([]);
  });

  it('a socket reset mid-body: tried 3 times, then a truncated row; the others stored byte-exact', async () => {
    const s = await sim({ seed: 73, conversations: 12, recordings: { reset: 0.4 } });
    const db = join(fileDir(), 'reset.duckdb');
    const out = join(fileDir(), 'reset');
    const metrics = join(fileDir(), 'reset.prom');
    const run = await runCli(['sync', '--recordings', out, '--metrics-file', metrics], envFor(s, db));
    expectCompleted(run, db, metrics);
    const truth = s.recordingTruth();
    const reset = [...truth].filter(([, t]) => t.kind === 'reset').map(([id]) => id);
    expect(reset.length).toBeGreaterThan(0);
    expect(reset.length).toBeLessThan(truth.size);
    for (const r of await rows(db)) {
      if (reset.includes(r.conversation_id)) {
        expect([r.state, r.attempts]).toEqual(['truncated', 3]);
        expect(r.reason).toMatch(/^cut after \d+ of \d+ bytes: .*ECONNRESET/);
      } else {
        expect(r.state).toBe('stored');
        expect(sha(r.path!)).toBe(truth.get(r.conversation_id)!.sha256);
      }
    }
    expect(s.requestLog.filter((r) => r.fault === 'reset').length).toBe(reset.length * 3);
    expect(filesUnder(out).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('an interrupt mid-download: the downloads are aborted quietly, the run is recorded as interrupted', async () => {
    const s = await sim({ seed: 74, conversations: 8, recordings: { slow: 1, slowBytesPerSecond: 4_000 } });
    const db = join(fileDir(), 'interrupt.duckdb');
    const out = join(fileDir(), 'interrupt');
    const metrics = join(fileDir(), 'interrupt.prom');
    mkdirSync(out, { recursive: true });
    const { child, done } = startCli(['sync', '--recordings', out, '--metrics-file', metrics], envFor(s, db));
    const deadline = Date.now() + 60_000;
    while (!filesUnder(out).some((f) => f.endsWith('.part')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(filesUnder(out).some((f) => f.endsWith('.part'))).toBe(true);
    child.kill('SIGTERM');
    const run = await done;
    expectCompleted(run, db, metrics, 130);
    expect(await details(db)).toBe(s.dataset.records.length);
    expect(await runStates(db)).toEqual(['interrupted']);
    const status = await runCli(['status'], { CONVODUCK_DB: db });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(/killed/);
  });
});
