import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file starts its own redis-server; the runtime test spawns Deno and Bun.
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
