import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bunBinary, denoBinary, freePort } from '@edge-mcp/test-kit/node';
import type { FixtureKind } from '../fixture.ts';
import { spawnTarget } from './spawn.ts';
import type { Target, TargetCaps } from './types.ts';

const require = createRequire(import.meta.url);
/** This package: where the deno and bun devDependencies are, and the entries' working directory. */
const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Deno runs WITHOUT --unstable-no-legacy-abort on purpose: with Deno's legacy behaviour
 * request.signal also aborts after a completed response, and the suite proves that a completed
 * request is still not reported as a disconnect.
 */
export async function denoTarget(fixture: FixtureKind = 'suite'): Promise<Target> {
  return spawnTarget({
    name: 'deno',
    command: denoBinary(ROOT),
    args: ['run', '--allow-net', '--allow-env', '--allow-read', '--quiet', 'src/entries/deno.ts'],
    cwd: ROOT,
    env: { FIXTURE: fixture, DENO_NO_UPDATE_CHECK: '1' },
    caps: DENO_CAPS,
    port: await freePort(),
  });
}

export async function bunTarget(fixture: FixtureKind = 'suite'): Promise<Target> {
  return spawnTarget({
    name: 'bun',
    command: bunBinary(ROOT),
    args: ['run', 'src/entries/bun.ts'],
    cwd: ROOT,
    env: { FIXTURE: fixture },
    caps: BUN_CAPS,
    port: await freePort(),
  });
}

/** Keep-alive interval of the workerd target (wrangler.jsonc KEEP_ALIVE_MS). */
export const WORKERD_KEEP_ALIVE_MS = 500;

/**
 * Deno may notice a client that left a silent call only when the answer's head is written: the
 * core picks streamAfterMs 1000 on Deno by itself (the entry gives none), which bounds it.
 */
export const DENO_CAPS: TargetCaps = {
  sessions: true,
  shutdown: 'process',
  disconnectBoundMs: 1_000,
};
export const BUN_CAPS: TargetCaps = { sessions: true, shutdown: 'process', disconnectBoundMs: 100 };
/** A write to a departed client still succeeds once (TCP); the next one fails: two intervals. */
export const WORKERD_CAPS: TargetCaps = {
  sessions: true,
  shutdown: false,
  disconnectBoundMs: 2 * WORKERD_KEEP_ALIVE_MS,
};

export interface WorkerdOptions {
  /** Durable Object storage directory; reuse it to restart onto the same sessions. */
  persistTo?: string;
  /** Extra `--var NAME:value` settings (IDLE_MS, GRACE_MS, KEEP_ALIVE_MS). */
  vars?: Record<string, string>;
}

export async function workerdTarget(
  fixture: FixtureKind = 'suite',
  options: WorkerdOptions = {},
): Promise<Target> {
  // wrangler binds the ports it is given and some of its own choosing some time after it starts;
  // another process (another target, a Redis) can take one in between. That start is retried on
  // fresh ports; any other failure is not.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWorkerd(fixture, options);
    } catch (error) {
      if (attempt === 3 || !String(error).includes('Address already in use')) throw error;
    }
  }
}

async function startWorkerd(fixture: FixtureKind, options: WorkerdOptions): Promise<Target> {
  const port = await freePort();
  const inspector = await freePort();
  // Without a directory to reuse, a fresh one per target, removed when it stops: a later run on
  // the same port must not wake this run's objects (registry, alarms).
  const state = options.persistTo ?? mkdtempSync(join(tmpdir(), 'edge-mcp-wrangler-'));
  const target = await spawnTarget({
    name: 'workerd',
    command: process.execPath,
    args: [
      join(dirname(require.resolve('wrangler/package.json')), 'bin', 'wrangler.js'),
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--show-interactive-dev-session=false',
      '--var',
      `FIXTURE:${fixture}`,
      ...Object.entries(options.vars ?? {}).flatMap(([name, value]) => [
        '--var',
        `${name}:${value}`,
      ]),
      '--persist-to',
      state,
    ],
    cwd: ROOT,
    env: {
      WRANGLER_SEND_METRICS: 'false',
      WRANGLER_SEND_ERROR_REPORTS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      CI: 'true',
    },
    caps: WORKERD_CAPS,
    port,
    readyMs: 90_000,
  }).catch((error: unknown) => {
    if (!options.persistTo) rmSync(state, { recursive: true, force: true });
    throw error;
  });
  if (options.persistTo) return target;
  const stop = target.stop;
  target.stop = async () => {
    await stop();
    rmSync(state, { recursive: true, force: true });
  };
  return target;
}
