// One convoduck sync in its own process; prints the summary and the process's peak memory.
//
//   CONVODUCK_API_KEY=... node dist/bench/children/sync-child.js '{"baseUrl":…,"dbPath":…,"windowMs":…}'
//
// The last stdout line is JSON: {summary, maxRssMb, userCpuSec, systemCpuSec, wallSec}.
// process.resourceUsage().maxRSS is the kernel's high-water mark of this process's resident set.

import { preferSmallHeap } from '../../shared/heap.js';
import { sync, type SyncProgress } from '../../crawler/sync.js';
import { reportChildFailure } from './child-error.js';
import { searchIndexing } from '../../store/search-index/maintain.js';

interface Args {
  baseUrl: string;
  dbPath: string;
  windowMs?: number;
  maxRpm?: number;
  concurrency?: number;
  searchIndex?: boolean;
}

/** The sync's last progress: where a failure happened. */
let last: SyncProgress | null = null;
const t0 = performance.now();

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? '{}') as Args;
  const apiKey = process.env.CONVODUCK_API_KEY ?? '';
  preferSmallHeap(); // as `convoduck sync` does
  if (args.searchIndex === false) searchIndexing.enabled = false;
  const summary = await sync({
    baseUrl: args.baseUrl,
    apiKey,
    dbPath: args.dbPath,
    ...(args.windowMs !== undefined ? { windowMs: args.windowMs } : {}),
    ...(args.maxRpm !== undefined ? { maxRpm: args.maxRpm } : {}),
    ...(args.concurrency !== undefined ? { concurrency: args.concurrency } : {}),
    onProgress: (p) => {
      last = p;
    },
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

function where(): string {
  const s = ((performance.now() - t0) / 1000).toFixed(0);
  if (last === null) return `after ${s} s, before the first progress`;
  const p = last;
  const counts =
    p.phase === 'details' || p.phase === 'done'
      ? `${p.detailsDone}/${p.detailsTotal} details done`
      : `${p.listed}${p.listTotal !== null ? `/${p.listTotal}` : ''} listed`;
  return `${p.phase} phase, ${counts}, ${p.requests} requests, after ${s} s`;
}

main().catch((err: unknown) => {
  reportChildFailure('sync-child', err, where());
  process.exit(1);
});
