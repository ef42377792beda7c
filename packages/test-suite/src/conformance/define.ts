import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Current, Target, TargetCaps } from '../targets/types.ts';
import { formatVerdict, resetResults, verifyRun } from './results.ts';
import { type ConformanceRun, conformanceRuns, runInvocations } from './runs.ts';

/** The summary lines of a run (scenario ✓/✗ lines), for a readable failure message. */
function summary(output: string): string {
  return output
    .split('\n')
    .filter((line) => /^[✓✗]|Total|Not scored|FAIL|Passed:/.test(line.trim()))
    .join('\n');
}

/** Scenarios a target is known to fail, by run (`2026-07-28`, `all`, …), each with the reason. */
export type ExpectedFailures = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * The official conformance suite against the conformance fixture served by `start()`, every run
 * of a pass (src/conformance/runs.ts: both requirement sets, every server scenario, the skills
 * scenarios on 2025-11-25). Strict (docs/design/tasks.md §4.10): the output directory is emptied
 * first; the CLI must exit 0, no check of any scenario, scored or not, may be a FAILURE or a
 * SKIPPED the run does not allow, and the scenarios run must be exactly the expected ones.
 * `expectedFailures` names scenarios a target cannot pass yet: each must then fail (a listed
 * scenario that passes fails the test, so the list cannot go stale).
 */
export function defineConformance(
  name: string,
  caps: TargetCaps,
  start: () => Promise<Target>,
  expectedFailures: ExpectedFailures = {},
): void {
  const check = async (target: Target, run: ConformanceRun) => {
    const outDir = join(import.meta.dirname, '..', '..', 'results', name, run.name);
    await resetResults(outDir);
    const { codes, output } = await runInvocations(target.mcpUrl, run, outDir);
    const verdict = verifyRun(outDir, {
      label: run.title,
      expected: run.expected,
      expectedFailures: expectedFailures[run.name] ?? {},
      allowedSkips: run.allowedSkips,
    });
    const report = formatVerdict(run.title, verdict);
    console.log(`${name}: ${report}`);
    expect(verdict.problems, report).toEqual([]);
    expect(codes, summary(output)).toEqual(codes.map(() => 0));
  };
  describe(`conformance on ${name}`, () => {
    const current = {} as Current;
    beforeAll(async () => {
      current.target = await start();
    });
    afterAll(async () => {
      await current.target?.stop();
    });
    // Legacy runs are served statefully (sessions, server→client requests on open streams).
    for (const run of conformanceRuns())
      test.skipIf(run.legacy && !caps.sessions)(
        run.title,
        () => check(current.target, run),
        600_000,
      );
  });
}
