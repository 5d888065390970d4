import { defineConfig } from 'vitest/config';

// Four projects, each its own npm script (test/README.md): unit, integration, docs and timing.
// `npm test` runs them all (test/run-projects.mjs): unit, integration and docs side by side, and
// timing beside them in a process of its own; `npx vitest run` runs timing after the others.

/**
 * Files that wait on real (shrunk) rate-limit windows, kills and timeouts, and judge when things
 * happened: they mostly wait, so they run one at a time beside the busier projects.
 */
const TIMING = [
  'test/alerts-hourly.test.ts',
  'test/back-to-back.test.ts',
  'test/chaos.test.ts',
  'test/eta.test.ts',
  'test/kill-soak.test.ts',
  'test/kubernetes.test.ts',
  'test/progress-tty.test.ts',
  'test/recordings-backfill.test.ts',
  'test/server-readings.test.ts',
  'test/simulator-readings.test.ts',
  'test/spaces-budgets.test.ts',
  'test/status-live.test.ts',
  'test/sync-cli.test.ts',
];

/** Files that run what the docs and help texts tell a user, as written. */
const DOCS = [
  'test/architecture.test.ts',
  'test/first-minutes.test.ts',
  'test/help-text.test.ts',
  'test/recipes.test.ts',
  'test/recovery-table.test.ts',
  'test/scale-out.test.ts',
  'test/walkthrough.test.ts',
];

export default defineConfig({
  test: {
    // Generous: a test that only waits on windows and servers may take several times longer on a
    // loaded machine; only a hang should reach these.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        // Pure functions: no server, no file written, seconds in all. They keep no state between
        // calls, so the files may share their workers' imported modules (most of the run is imports).
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 30_000, maxWorkers: 4, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/*.test.ts'],
          exclude: [...TIMING, ...DOCS],
          globalSetup: ['test/support/global-fixtures.ts'],
          // Most crawl tests wait on servers and shrunk windows rather than compute, so four files
          // at a time on two cores.
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        test: { name: 'docs', include: DOCS, maxWorkers: 4 },
      },
      {
        extends: true,
        // One file at a time: what these judge is when requests went, which another timing file's
        // windows would disturb. Its own group order, as vitest runs projects of different worker
        // counts in turn.
        test: { name: 'timing', include: TIMING, maxWorkers: 1, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
