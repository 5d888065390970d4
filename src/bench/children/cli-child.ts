// The real CLI in a process of its own, reporting what the process cost when it exits.
//
//   BENCH_RUSAGE_FILE=/tmp/x.json node dist/bench/children/cli-child.js sync --config job.toml --json
//
// Runs `convoduck <args>` exactly as dist/cli/main.js would; on exit writes
// {code, maxRssMb, userCpuSec, systemCpuSec, wallSec} to BENCH_RUSAGE_FILE.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const t0 = performance.now();
const out = process.env.BENCH_RUSAGE_FILE;
process.on('exit', (code) => {
  if (!out) return;
  const ru = process.resourceUsage();
  writeFileSync(
    out,
    JSON.stringify({
      code,
      maxRssMb: ru.maxRSS / 1024,
      userCpuSec: ru.userCPUTime / 1e6,
      systemCpuSec: ru.systemCPUTime / 1e6,
      wallSec: (performance.now() - t0) / 1000,
    }),
  );
});
const main = fileURLToPath(new URL('../../cli/main.js', import.meta.url));
process.argv = [process.argv[0]!, main, ...process.argv.slice(2)];
await import('../../cli/main.js');
