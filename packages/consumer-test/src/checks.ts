/**
 * How the consumer test checks each runnable file the documents show (src/readme.ts). Every `.ts`
 * file is also type-checked by tsc (test/documents.test.ts); a file without an entry here, or an
 * entry without a file, fails that test, so a new block cannot go unchecked.
 */

export type Runtime = 'node' | 'deno' | 'bun';

export type Check =
  /** A test file of its own runs it (named, relative to test/). */
  | { kind: 'own'; test: string }
  /** Runs to its end under plain Node (a `.ts` file as tsc built it): exit code 0, and `prints` on stdout. */
  | { kind: 'script'; prints?: RegExp }
  /**
   * Serves until stopped: started on each runtime, it prints `MCP server on <url>`, answers the
   * probe and, when `graceful` (the default), exits 0 on SIGTERM. Probes: `discover` (a 2026-07-28
   * `server/discover`), `auth` (a 401 challenge and the Protected Resource Metadata).
   */
  | { kind: 'server'; runtimes: Runtime[]; probe?: 'discover' | 'auth'; graceful?: boolean }
  /** Type-checked only: a Worker, or an app module another runtime serves. */
  | { kind: 'types' };

export const CHECKS: Record<string, Check> = {
  // README.md: the smallest server per runtime (server.ts is in the adapters README).
  'server.mjs': { kind: 'own', test: 'runtimes.test.ts' },
  'server.ts': { kind: 'own', test: 'typescript.test.ts' },
  'worker.ts': { kind: 'own', test: 'cloudflare.test.ts' },
  'wrangler.jsonc': { kind: 'own', test: 'cloudflare.test.ts' },
  // packages/core/README.md
  'notes.ts': { kind: 'script', prints: /structuredContent: \{ sum: 5 \}/ },
  'sessions.ts': { kind: 'script', prints: /call 1 of this session\ncall 2 of this session\n/ },
  'tasks.ts': { kind: 'script', prints: /task working\ncompleted report over 3 days\ncancelled\n/ },
  'otel.ts': { kind: 'script' },
  'jwt.ts': { kind: 'script', prints: /^401 Bearer resource_metadata="[^"]+"$/m },
  'visible-to.ts': {
    kind: 'script',
    prints: /\[ 'whoami', 'report' \]\n\[ 'whoami', 'beta' \]\nUnknown tool: report\n/,
  },
  // packages/adapters/README.md
  'node-listener.ts': { kind: 'server', runtimes: ['node'], graceful: false },
  'deno-server.ts': { kind: 'server', runtimes: ['deno'] },
  'bun-server.ts': { kind: 'server', runtimes: ['bun'] },
  'session-worker.ts': { kind: 'types' },
  'tasks-worker.ts': { kind: 'types' },
  'hono-app.ts': { kind: 'types' },
  'hono-jwt.ts': { kind: 'types' },
  'hono-serve.ts': { kind: 'server', runtimes: ['node', 'deno', 'bun'] },
  // packages/redis/README.md
  'cluster.mjs': { kind: 'own', test: 'redis.test.ts' },
  // docs/authorization.md
  'auth-server.mjs': { kind: 'server', runtimes: ['node'], probe: 'auth' },
};
