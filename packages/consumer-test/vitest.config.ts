import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./src/global-setup.ts'],
    fileParallelism: false,
    // Installs, builds and other runtimes' start-up: generous, never a measurement.
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
