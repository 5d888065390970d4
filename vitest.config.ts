import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most crawl tests wait on shrunk rate-limit windows rather than compute, so three files at a
    // time on two cores; more leaves the throughput tests short of CPU.
    maxWorkers: 3,
  },
});
