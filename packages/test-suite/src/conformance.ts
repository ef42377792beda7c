import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Current, Target, TargetCaps } from './targets/types.ts';

const fixturePackage = createRequire(import.meta.url).resolve('@edge-mcp/conformance/package.json');
const fromFixture = createRequire(fixturePackage);
/** The suite needs Node 22; it is installed from npm as a devDependency of @edge-mcp/conformance. */
const node22 = join(dirname(fromFixture.resolve('node22/package.json')), 'bin', 'node');
const cli = join(
  dirname(fromFixture.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);

/** Runs `conformance server --requirements <set>`; resolves with its exit code and output. */
export function runConformance(
  url: string,
  requirements: string,
  outDir: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      node22,
      [cli, 'server', '--url', url, '--requirements', requirements, '-o', outDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** The summary lines of a run (scenario ✓/✗ lines), for a readable failure message. */
function summary(output: string): string {
  return output
    .split('\n')
    .filter((line) => /^[✓✗]|Total|Not scored|FAIL/.test(line.trim()))
    .join('\n');
}

/**
 * The official conformance suite against the conformance fixture served by `start()`, once per
 * requirement set, failing on any scored failure (there is no expected-failure list).
 */
export function defineConformance(
  name: string,
  caps: TargetCaps,
  start: () => Promise<Target>,
): void {
  describe(`conformance on ${name}`, () => {
    const current = {} as Current;
    beforeAll(async () => {
      current.target = await start();
    });
    afterAll(async () => {
      await current.target?.stop();
    });
    test('--requirements 2026-07-28', async () => {
      const { code, output } = await runConformance(
        current.target.mcpUrl,
        '2026-07-28',
        join(import.meta.dirname, '..', 'results', name, '2026-07-28'),
      );
      expect(code, summary(output)).toBe(0);
    }, 600_000);
    // Legacy 2025-11-25 is served statefully (sessions, server→client requests on open streams).
    test.skipIf(!caps.sessions)(
      '--requirements 2025-11-25',
      async () => {
        const { code, output } = await runConformance(
          current.target.mcpUrl,
          '2025-11-25',
          join(import.meta.dirname, '..', 'results', name, '2025-11-25'),
        );
        expect(code, summary(output)).toBe(0);
      },
      600_000,
    );
  });
}
