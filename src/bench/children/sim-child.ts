// A simulator in its own process, so that a benchmark measures only convoduck's memory and CPU.
//
//   node dist/bench/children/sim-child.js '<SimulatorOptions as JSON>'
//
// Prints one JSON line (a SimChildHello, procs.ts) once it listens, then answers one JSON
// line per command read from stdin:
//   {"cmd":"stats"}                 request counts since start (or the last reset)
//   {"cmd":"reset"}                 zero the counts
//   {"cmd":"log"}                   every request since start as [ms, client 0|1, status, kind]
//                                   (only with "keepLog": true in the options)
//   {"cmd":"add","n":N}             add N finished conversations (started in the last N seconds),
//                                   finish the open ones
// It exits when stdin closes.

import { createInterface } from 'node:readline';
import type { SimChildHello } from './procs.js';
import { startSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { RequestCounts } from '../measure.js';
import { reportChildFailure } from './child-error.js';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SimulatorOptions & { nowIso?: string; keepLog?: boolean };
  const counts = new RequestCounts(options.keepLog === true);
  const started = Date.now();
  const { nowIso: _n, keepLog: _k, ...simOptions } = options;
  const sim = await startSimulator({
    ...simOptions,
    ...(options.nowIso ? { now: new Date(options.nowIso) } : {}),
    logRequests: false,
    onRequest: (e) => counts.add(e),
  });
  const write = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  const hello: SimChildHello = {
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    space: sim.dataset.space.slug,
    conversations: sim.dataset.records.length,
    agents: sim.dataset.agents.length,
    tools: sim.dataset.tools.length,
    startMs: Date.now() - started,
  };
  write(hello);
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const cmd = JSON.parse(line) as { cmd: string; n?: number };
    if (cmd.cmd === 'stats') write(counts.snapshot());
    else if (cmd.cmd === 'log') write(counts.log ?? []);
    else if (cmd.cmd === 'reset') {
      counts.reset();
      write({ ok: true });
    } else if (cmd.cmd === 'add') {
      // Finished conversations that started in the last minutes, one second apart (a run of
      // equal start times would be one tie group no time window can split).
      const n = cmd.n ?? 0;
      const now = sim.clock().getTime();
      let added = 0;
      for (let i = n; i >= 1; i--) added += sim.addConversations(1, { open: false, startedAt: new Date(now - i * 1000) }).length;
      const finished = sim.finishOpenConversations();
      write({ added, finished, total: sim.dataset.records.length });
    } else write({ error: `unknown command ${cmd.cmd}` });
  }
  await sim.close();
}

main().catch((err: unknown) => {
  reportChildFailure('sim-child', err);
  process.exit(1);
});
