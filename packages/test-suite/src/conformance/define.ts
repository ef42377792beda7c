import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Current, Target, TargetCaps } from '../targets/types.ts';
import { CONFORMANCE_CLI, formatVerdict, NODE22, resetResults, verifyResults } from './results.ts';

/**
 * Runs `conformance server --requirements <set>` (the suite needs Node 22; it is installed from
 * npm as a devDependency of this package); resolves with its exit code and output.
 */
export function runConformance(
  url: string,
  requirements: string,
  outDir: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      NODE22,
      [CONFORMANCE_CLI, 'server', '--url', url, '--requirements', requirements, '-o', outDir],
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

/** Scenarios a target is known to fail, by requirement set, each with the reason. */
export type ExpectedFailures = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * The official conformance suite against the conformance fixture served by `start()`, once per
 * requirement set. Strict (docs/design/tasks.md §4.10): the output directory is emptied first;
 * the CLI must exit 0 (scored scenarios), no check of any scenario, scored or not, may be a
 * FAILURE, and the scenarios run must be exactly the server ones of the installed requirement
 * set. `expectedFailures` names scenarios a target cannot pass yet: each must then fail (a
 * listed scenario that passes fails the test, so the list cannot go stale).
 */
export function defineConformance(
  name: string,
  caps: TargetCaps,
  start: () => Promise<Target>,
  expectedFailures: ExpectedFailures = {},
): void {
  const check = async (target: Target, requirements: string) => {
    const outDir = join(import.meta.dirname, '..', '..', 'results', name, requirements);
    await resetResults(outDir);
    const { code, output } = await runConformance(target.mcpUrl, requirements, outDir);
    const verdict = verifyResults(outDir, requirements, expectedFailures[requirements]);
    const report = formatVerdict(requirements, verdict);
    console.log(`${name}: ${report}`);
    expect(verdict.problems, report).toEqual([]);
    expect(code, summary(output)).toBe(0);
  };
  describe(`conformance on ${name}`, () => {
    const current = {} as Current;
    beforeAll(async () => {
      current.target = await start();
    });
    afterAll(async () => {
      await current.target?.stop();
    });
    test('--requirements 2026-07-28', () => check(current.target, '2026-07-28'), 600_000);
    // Legacy 2025-11-25 is served statefully (sessions, server→client requests on open streams).
    test.skipIf(!caps.sessions)(
      '--requirements 2025-11-25',
      () => check(current.target, '2025-11-25'),
      600_000,
    );
  });
}
