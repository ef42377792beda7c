import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One test file at a time across both projects: each starts servers (a runtime, or Chromium
    // and an authorization server), and the machine has two cores.
    fileParallelism: false,
    projects: [
      {
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          // One runtime at a time: each target is a server process, and the machine has two cores.
          fileParallelism: false,
          hookTimeout: 120_000,
          testTimeout: 60_000,
        },
      },
      {
        test: {
          // Authorization end to end (auth-e2e/README.md), with its own timeouts.
          name: 'auth-e2e',
          include: ['auth-e2e/test/**/*.test.ts'],
          // One Chromium and one authorization server at a time on a 2-core machine.
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
    ],
  },
});
