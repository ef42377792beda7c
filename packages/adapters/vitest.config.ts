import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child-process tests start Node with the tsx loader; leave room on a slow CI machine.
    testTimeout: 20_000,
  },
});
