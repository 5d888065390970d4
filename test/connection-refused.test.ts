// A server that refuses the connection: the progress line says so, and which attempt is due,
// while the client retries; requests that never connected are not counted as sent (nor in the
// rate per minute). Real sockets, loopback only: a port just closed on 127.0.0.1.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sync, type SyncProgress } from '../src/crawler/sync.js';
import { progressLine } from '../src/cli/sync/progress.js';
import { scratch } from './support/scratch.js';

const { tempDb } = scratch('connection-refused');

/** A loopback port nothing listens on (one the system just handed out and we closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a refused connection', () => {
  it('is what the progress line says, with the attempt due; nothing counts as sent', async () => {
    const port = await closedPort();
    const seen: SyncProgress[] = [];
    const run = sync({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      apiKey: 'np_test_refused',
      dbPath: tempDb(),
      maxRetries: 3,
      onProgress: (p) => seen.push(p),
    });
    await expect(run).rejects.toThrow(/ECONNREFUSED.*gave up after 4 attempts/);

    const troubled = seen.filter((p) => p.connection);
    expect(troubled.length).toBeGreaterThan(0);
    for (const p of troubled) {
      expect(p.connection!.problem).toBe(`connection refused by 127.0.0.1:${port}`);
      expect(p.connection!.attempt).toBeGreaterThanOrEqual(2);
    }
    expect(seen.every((p) => p.requests === 0 && p.rate.inWindow === 0)).toBe(true);
    const line = progressLine(troubled.at(-1)!);
    expect(line).toMatch(new RegExp(`^\\w+ · connection refused by 127\\.0\\.0\\.1:${port} · retrying \\(attempt [2-4]\\) · .* · 0 requests · 0/min`));
  }, 300_000);
});
