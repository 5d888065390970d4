// Many simulated spaces in one process (the sync under test runs in another): each its own
// server, key, slug, data and rate limit.
//
//   node dist/bench/children/spaces-child.js '{"count":100,"conversations":200,"rateLimit":60,"windowMs":60000}'
//
// Prints one JSON line once all listen: {spaces: [{baseUrl, apiKey, space, conversations}]}; then
// answers one JSON line per command read from stdin:
//   {"cmd":"logs"}   per space, every request of its key as [ms, 0, status, kind] (measure.ts LogTuple)
// It exits when stdin closes.

import { createInterface } from 'node:readline';
import { generateDataset, startSimulator, type Simulator } from '../../simulator/index.js';
import { reportChildFailure } from './child-error.js';
import { RequestCounts } from '../measure.js';

export interface SpacesChildOptions {
  count: number;
  /** conversations per space */
  conversations: number;
  /** requests per window per key */
  rateLimit: number;
  windowMs: number;
  /** response time of a detail or list request (ms) */
  latencyMs?: number;
  seedBase?: number;
  /** the spaces' slugs, one per space (default space-001, space-002 …) */
  slugs?: string[];
}

export interface SpacesChildHello {
  spaces: { baseUrl: string; apiKey: string; space: string; conversations: number }[];
  startMs: number;
}

async function main(): Promise<void> {
  const o = JSON.parse(process.argv[2] ?? '{}') as SpacesChildOptions;
  const started = Date.now();
  const sims: Simulator[] = [];
  const logs: RequestCounts[] = [];
  const now = new Date();
  for (let i = 0; i < o.count; i++) {
    const seed = (o.seedBase ?? 5000) + i;
    // The simulator draws its slug from a few dozen company names: 100 spaces need 100 slugs.
    const spaceSlug = o.slugs?.[i] ?? `space-${String(i + 1).padStart(3, '0')}`;
    const dataset = generateDataset({ seed, conversations: o.conversations, now, spaceSlug });
    const counts = new RequestCounts(true);
    sims.push(
      await startSimulator({
        seed,
        dataset,
        rateLimit: o.rateLimit,
        windowMs: o.windowMs,
        latency: { detailMs: o.latencyMs ?? 0, listMs: o.latencyMs ?? 0 },
        logRequests: false,
        onRequest: (e) => counts.add(e),
      }),
    );
    logs.push(counts);
  }
  const write = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  const hello: SpacesChildHello = {
    spaces: sims.map((s) => ({ baseUrl: s.baseUrl, apiKey: s.apiKey, space: s.dataset.space.slug, conversations: s.dataset.records.length })),
    startMs: Date.now() - started,
  };
  write(hello);
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.trim() === '') continue;
    const cmd = JSON.parse(line) as { cmd: string };
    if (cmd.cmd === 'logs') write(logs.map((l) => l.log ?? []));
    else write({ error: `unknown command ${cmd.cmd}` });
  }
  await Promise.all(sims.map((s) => s.close()));
}

main().catch((err: unknown) => {
  reportChildFailure('spaces-child', err);
  process.exit(1);
});
