/**
 * What one conformance pass runs against a fixture, for `pnpm conformance` and the shared suite
 * alike: the two requirement sets; every server scenario the installed suite lists (`--suite
 * all`: the extension scenarios, skills and tasks, with those of both sets); and the skills
 * scenarios again on the legacy wire (2025-11-25), where the extension applies too. Each run has
 * its own output directory and its own allowed skips.
 *
 * Node only (node:child_process).
 */
import { spawn } from 'node:child_process';
import {
  type AllowedSkip,
  CONFORMANCE_CLI,
  expectedScenarios,
  LEGACY_SKILL_SKIPS,
  listedScenarios,
  NODE22,
  SUITE_SKIPS,
} from './results.ts';

export interface ConformanceRun {
  /** Its output directory's name, and how expected failures name it. */
  readonly name: string;
  readonly title: string;
  /** The CLI's arguments after `server --url <url> -o <dir>`, one invocation each. */
  readonly invocations: ReadonlyArray<readonly string[]>;
  /** The scenarios it must run, each once. */
  readonly expected: readonly string[];
  readonly allowedSkips: readonly AllowedSkip[];
  /** It speaks the legacy revisions (sessions, server→client requests on open streams). */
  readonly legacy: boolean;
}

/** The requirement sets of the installed suite that a pass runs. */
export const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'] as const;

export function conformanceRuns(): ConformanceRun[] {
  const listed = listedScenarios();
  const skills = listed.filter((name) => name.startsWith('sep-2640-'));
  return [
    ...REQUIREMENT_SETS.map((set) => ({
      name: set,
      title: `--requirements ${set}`,
      invocations: [['--requirements', set]],
      expected: expectedScenarios(set),
      allowedSkips: SUITE_SKIPS,
      legacy: set !== '2026-07-28',
    })),
    {
      name: 'all',
      title: 'every server scenario (--suite all)',
      invocations: [['--suite', 'all']],
      expected: listed,
      allowedSkips: SUITE_SKIPS,
      legacy: true,
    },
    {
      name: 'skills-2025-11-25',
      title: 'the skills scenarios on 2025-11-25',
      // --force: the suite runs an extension scenario at a dated revision only when told to.
      invocations: skills.map((name) => [
        '--scenario',
        name,
        '--spec-version',
        '2025-11-25',
        '--force',
      ]),
      expected: skills,
      allowedSkips: LEGACY_SKILL_SKIPS,
      legacy: true,
    },
  ];
}

/**
 * Runs a run's invocations one after the other against `url`, writing into `outDir`; resolves
 * with the exit codes and, unless the output is inherited, what they printed.
 */
export async function runInvocations(
  url: string,
  run: ConformanceRun,
  outDir: string,
  stdio: 'pipe' | 'inherit' = 'pipe',
): Promise<{ codes: number[]; output: string }> {
  const codes: number[] = [];
  let output = '';
  for (const args of run.invocations) {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(
        NODE22,
        [CONFORMANCE_CLI, 'server', '--url', url, ...args, '-o', outDir],
        {
          stdio: ['ignore', stdio, stdio],
        },
      );
      const collect = (chunk: Buffer) => {
        output += chunk;
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      child.on('error', reject);
      child.on('close', (exit, signal) => resolve(exit ?? (signal ? 1 : 0)));
    });
    codes.push(code);
  }
  return { codes, output };
}
