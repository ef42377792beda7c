import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The smoke run starts Node targets under tsx one after another; leave room on a loaded machine.
    testTimeout: 180_000,
    // The smoke and idle-sessions runs each load both cores: one at a time.
    fileParallelism: false,
  },
});
