// The progress line's ETA against what really happens: a sync at the simulator's 60 requests per
// (shrunk) minute, its progress reports kept with their times, each ETA compared with the time the
// run really had left. Never 0 while work is left; counting down unless something real happens.
import { describe, expect, it } from 'vitest';
import { progressLine, etaSeconds } from '../src/cli/sync/progress.js';
import { sync, type SyncProgress } from '../src/crawler/sync.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('eta');
const WINDOW_MS = 3_000;

interface Seen {
  at: number;
  p: SyncProgress;
  eta: number | null;
  line: string;
}

describe('the ETA of a sync at 60 requests per minute', () => {
  it('is within half of the time really left after the first minute, never 0 while work is left, and counts down', async () => {
    const sim = await simulator({ seed: 29, conversations: 480, rateLimit: 60, windowMs: WINDOW_MS, latency: { detailMs: 5, listMs: 5 } });
    const seen: Seen[] = [];
    const summary = await sync({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      dbPath: tempDb(),
      windowMs: WINDOW_MS,
      now: () => sim.clock(),
      onProgress: (p) => {
        const at = Date.now();
        seen.push({ at, p, eta: etaSeconds(p), line: progressLine(p) });
      },
    });
    const end = Date.now();
    expect(summary.status).toBe('ok');
    // the ETA is until the last request is sent: when the simulator took it (the run's last writes come after)
    const lastRequest = sim.requestLog.at(-1)!.t;
    expect(lastRequest).toBeGreaterThan(seen[0]!.at);
    expect(lastRequest).toBeLessThanOrEqual(end);
    expect(summary.throttled).toBe(0);
    const start = seen[0]!.at;

    // never "ETA 0s" while anything is left to do
    const working = seen.filter((s) => s.p.phase !== 'done');
    for (const s of working) expect(s.line, s.line).not.toMatch(/ETA 0s/);
    for (const s of working) if (s.eta !== null) expect(s.eta).toBeGreaterThan(0);

    // the details phase after the first (shrunk) minute, while a minute or more is left
    const judged = seen.filter((s) => s.p.phase === 'details' && s.at - start >= WINDOW_MS && lastRequest - s.at >= WINDOW_MS);
    expect(judged.length).toBeGreaterThan(20);
    const misses = judged
      .map((s) => ({ eta: s.eta, left: (lastRequest - s.at) / 1000 }))
      // within half: a loaded machine stretches the time really left, while an estimate that
      // ignores the budget (or counts the pace of earlier phases) is off by multiples
      .filter((x) => x.eta === null || Math.abs(x.eta - x.left) > 0.5 * x.left);
    expect(misses, JSON.stringify(misses.slice(0, 5))).toEqual([]);

    // counting down: from one report to the next the ETA never rises by more than the jitter of a send
    const details = seen.filter((s) => s.p.phase === 'details' && s.eta !== null);
    for (let i = 1; i < details.length; i++) {
      const [a, b] = [details[i - 1]!, details[i]!];
      expect(b.eta!, `${a.line} → ${b.line}`).toBeLessThanOrEqual(a.eta! + 0.1 * (WINDOW_MS / 1000));
    }
  }, 300_000);

  it('is not shown on the first lines of a run its own pace holds back, and then within reach of the time really left', async () => {
    // a budget with room for everything: the pace of slow answers (32 at a time) sets the run's length
    const windowMs = 8_000;
    const sim = await simulator({ seed: 31, conversations: 480, rateLimit: 100_000, windowMs, latency: { detailMs: 600, listMs: 5 } });
    const seen: Seen[] = [];
    const summary = await sync({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      dbPath: tempDb(),
      windowMs,
      now: () => sim.clock(),
      onProgress: (p) => seen.push({ at: Date.now(), p, eta: etaSeconds(p), line: progressLine(p) }),
    });
    expect(summary.status).toBe('ok');
    const lastRequest = sim.requestLog.at(-1)!.t;
    const details = seen.filter((s) => s.p.phase === 'details');
    expect(details[0]!.line, 'the first details line').not.toMatch(/ETA/);
    for (const s of seen.filter((x) => x.p.phase === 'listing').slice(0, 1)) expect(s.line).not.toMatch(/ETA/);
    // once shown, never a multiple of the time left (the absurd first guess was ~40 times it)
    const shown = details.filter((s) => s.eta !== null && lastRequest - s.at >= 1_000);
    expect(shown.length, 'an ETA is shown once the pace is known').toBeGreaterThan(0);
    const wild = shown.map((s) => ({ eta: s.eta!, left: (lastRequest - s.at) / 1000 })).filter((x) => x.eta > 3 * x.left || x.eta < x.left / 3);
    expect(wild, JSON.stringify(wild.slice(0, 5))).toEqual([]);
  }, 300_000);
});
