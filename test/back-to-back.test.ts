// A sync started right after one that spent the key's (shrunk) minute: the database holds when its
// last run's requests went, and the new run's limiter starts from them, so it sends nothing into a
// 429 and does not wait the window out as if another client held it. Over HTTP, at 60 a window.
import { describe, expect, it } from 'vitest';
import { syncSpaces } from '../src/crawler/sync-spaces.js';
import { sync } from '../src/crawler/sync.js';
import type { RequestLogEntry, Simulator } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import { scratch } from './support/scratch.js';

const { simulator, tempDb } = scratch('back-to-back');
// long enough that a loaded machine's stall between the first run's sends and its last write does
// not carry them out of the window
const WINDOW_MS = 10_000;
const own = (sim: Simulator, from = 0): RequestLogEntry[] => sim.requestLog.slice(from).filter((r) => r.client === 'key');

describe('a sync started right after a stopped one', () => {
  it('sends no request into a 429: it counts the stopped run’s requests in the window as its own', async () => {
    const sim = await simulator({ seed: 296, conversations: 130, rateLimit: 60, windowMs: WINDOW_MS });
    const dbPath = tempDb();
    const settings = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, dbPath, windowMs: WINDOW_MS, now: () => sim.clock() };

    // the first run spends the key's whole window, then is stopped
    const stop = new AbortController();
    const first = await sync({
      ...settings,
      signal: stop.signal,
      // stopped once the window is full and the limiter waits for it
      onProgress: (p) => {
        if (p.waiting?.reason === 'own-window') stop.abort();
      },
    });
    expect(first.status).toBe('interrupted');
    const firstEnd = own(sim).length;
    expect(own(sim).filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(own(sim).filter((r) => r.status === 429)).toEqual([]);
    const stored = await Database.with(dbPath, (db) => db.one<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM rate_limit_sends`), { readOnly: true });
    // what it sent in its last window, as rows
    expect(stored!.n).toBeGreaterThan(0);
    expect(stored!.n).toBeLessThanOrEqual(firstEnd);

    // at once, the next run: not one 429, and all of it fetched
    const second = await sync(settings);
    expect(second.status).toBe('ok');
    const secondRequests = own(sim, 0).slice(firstEnd);
    expect(secondRequests.length).toBeGreaterThan(60);
    expect(secondRequests.filter((r) => r.status === 429).map((r) => `${secondRequests.indexOf(r)} ${r.path}`)).toEqual([]);
    expect(second.throttled).toBe(0);
  }, 300_000);

  it('counts them before its first request when the space is configured with its slug', async () => {
    // a fixed window stays full until it ends, so a request sent into it is a 429 whatever the timing
    const windowMs = 10_000;
    const sim = await simulator({ seed: 297, conversations: 20, rateLimit: 60, windowMs, rateAlgorithm: 'fixed' });
    const dbPath = tempDb();
    const settings = { baseUrl: sim.baseUrl, apiKey: sim.apiKey, windowMs };
    const first = await sync({ ...settings, dbPath });
    expect(first.status).toBe('ok');
    // the rest of the window spent by the same database's run: sent, and stored as its sends
    const spent = own(sim).length;
    const fill = 60 - spent;
    for (let i = 0; i < fill; i++) await fetch(`${sim.baseUrl}/spaces`, { headers: { authorization: `Bearer ${sim.apiKey}` } });
    expect(own(sim).filter((r) => r.status === 429)).toEqual([]);
    await Database.with(dbPath, (db) =>
      db.run(`INSERT INTO rate_limit_sends SELECT space, base_url, now(), key_limit FROM rate_limit_sends, range(${fill}) LIMIT ${fill}`),
    );

    // at once, a config run of the same space: not even its GET /spaces goes into the full window
    const second = await syncSpaces({ spaces: [{ ...settings, label: 'main', slug: sim.dataset.space.slug }], dbPath });
    expect(second.spaces.map((o) => o.status)).toEqual(['ok']);
    const secondRequests = own(sim).slice(60);
    expect(secondRequests[0]!.path).toMatch(/\/spaces$/);
    expect(secondRequests.filter((r) => r.status === 429).map((r) => `${secondRequests.indexOf(r)} ${r.path}`)).toEqual([]);
  }, 300_000);
});
