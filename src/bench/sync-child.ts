// One convoduck sync in its own process; prints the summary and the process's peak memory.
//
//   CONVODUCK_API_KEY=... node dist/bench/sync-child.js '{"baseUrl":…,"dbPath":…,"windowMs":…}'
//
// The last stdout line is JSON: {summary, maxRssMb, userCpuSec, systemCpuSec, wallSec}.
// process.resourceUsage().maxRSS is the kernel's high-water mark of this process's resident set.

import { preferSmallHeap } from '../shared/heap.js';
import { sync } from '../crawler/sync.js';

interface Args {
  baseUrl: string;
  dbPath: string;
  windowMs?: number;
  maxRpm?: number;
  concurrency?: number;
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as Args;
  const apiKey = process.env.CONVODUCK_API_KEY ?? '';
  preferSmallHeap(); // as `convoduck sync` does
  const t0 = performance.now();
  const summary = await sync({
    baseUrl: args.baseUrl,
    apiKey,
    dbPath: args.dbPath,
    ...(args.windowMs !== undefined ? { windowMs: args.windowMs } : {}),
    ...(args.maxRpm !== undefined ? { maxRpm: args.maxRpm } : {}),
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
  });
  const wallSec = (performance.now() - t0) / 1000;
  const ru = process.resourceUsage();
  process.stdout.write(
    `${JSON.stringify({
      summary,
      maxRssMb: ru.maxRSS / 1024,
      userCpuSec: ru.userCPUTime / 1e6,
      systemCpuSec: ru.systemCPUTime / 1e6,
      wallSec,
    })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`sync-child: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
