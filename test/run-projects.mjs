// `npm test`'s runner: the timing project (one file at a time, waiting on real windows, hardly any
// CPU) beside the others (four files at a time), as two vitest processes. Vitest runs projects of
// different worker counts one after the other, which would add the timing files' waits to the
// suite's length. The timing tests judge only what a loaded machine cannot miss, so the others
// running beside them is load they must stand anyway.
// The timing run's output is held and printed after the other's, so neither interleaves.
import { spawn } from 'node:child_process';

const vitest = (projects, stdio) =>
  spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...projects.flatMap((p) => ['--project', p])], {
    stdio: ['ignore', stdio, stdio],
    env: process.env,
  });

const finished = (child) => new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));

const timing = vitest(['timing'], 'pipe');
const held = [];
timing.stdout.on('data', (chunk) => held.push(chunk));
timing.stderr.on('data', (chunk) => held.push(chunk));
const timingDone = finished(timing);

const rest = vitest(['unit', 'integration', 'docs'], 'inherit');
const restCode = await finished(rest);

const timingCode = await timingDone;
process.stdout.write('\n--- the timing project (run beside the others) ---\n');
for (const chunk of held) process.stdout.write(chunk);
process.exitCode = restCode !== 0 || timingCode !== 0 ? 1 : 0;
