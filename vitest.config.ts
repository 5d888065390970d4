import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most crawl tests wait on shrunk rate-limit windows rather than compute, so four files at a
    // time on two cores keep both cores busy; the timing assertions allow for the noise.
    maxWorkers: 4,
  },
});
