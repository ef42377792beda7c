import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fuzz and the soak each run against the clock (see their budgets); the files run one
    // after the other so a 2-core CI machine gives each its whole time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
