/**
 * How a fixture runs under Deno or Bun (the real binaries of npm:deno and npm:bun); the test kit's
 * `startChild` starts it, and every child is killed after each test.
 */
import { join } from 'node:path';
import { bunBinary, denoBinary, killChildren } from '@edge-mcp/test-kit/node';
import { afterEach } from 'vitest';

export const PACKAGE_DIR = join(import.meta.dirname, '..', '..');

/** Deno's least-privilege flags: loopback only, and the env names the package needs. */
const DENO_ENV = 'REDIS_URL,REDIS_NAMESPACE,REDIS_DEBUG_MAINTENANCE,REDIS_EMIT_DIAGNOSTICS';

/** The command running `fixture` under each runtime. */
export const RUNTIMES: ReadonlyArray<[string, (fixture: string) => [string, string[]]]> = [
  [
    'deno',
    (fixture) => [
      denoBinary(PACKAGE_DIR),
      ['run', '--allow-net=127.0.0.1', `--allow-env=${DENO_ENV}`, fixture],
    ],
  ],
  ['bun', (fixture) => [bunBinary(PACKAGE_DIR), ['run', fixture]]],
];

afterEach(killChildren);
