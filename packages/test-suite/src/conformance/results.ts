/**
 * Strict reading of a conformance run (docs/design/tasks.md §4.10). The CLI exits non-zero only
 * for failures of *scored* scenarios; here every `FAILURE` counts, scored or `not_scored`, and
 * the scenarios run must be exactly the ones expected (an installed requirement set's server ones:
 * `server` plus the `not_scored` entries of leg `server`; or every server scenario the suite
 * lists). A `SKIPPED` check fails too, unless it is one of the run's allowed skips: a check the
 * suite itself cannot make, or one that does not apply to the run's revision, never a feature
 * the fixture lacks. INFO and WARNING checks do not fail a run; they are reported.
 *
 * Node only (node:fs): kept out of the fixture, which also runs on workerd.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const fromHere = createRequire(import.meta.url);
const suitePackage = fromHere.resolve('@modelcontextprotocol/conformance/package.json');
const fromSuite = createRequire(suitePackage);

/** The installed suite's CLI and the Node 22 that runs it (the `node22` devDependency). */
export const CONFORMANCE_CLI = join(dirname(suitePackage), 'dist', 'index.js');
export const NODE22 = join(dirname(fromHere.resolve('node22/package.json')), 'bin', 'node');

interface Requirements {
  server?: unknown;
  not_scored?: Array<{ scenario?: unknown; leg?: unknown }>;
}

/**
 * The server scenarios `--requirements <revision>` runs, read from the installed suite's
 * `requirements/<revision>.yaml` with the YAML parser the suite itself uses.
 */
export function expectedScenarios(revision: string): string[] {
  const file = join(dirname(suitePackage), 'requirements', `${revision}.yaml`);
  const { parse } = fromSuite('yaml') as { parse(text: string): unknown };
  const doc = parse(readFileSync(file, 'utf8')) as Requirements;
  if (!Array.isArray(doc.server) || !doc.server.every((s) => typeof s === 'string'))
    throw new Error(`${file}: no list of server scenarios`);
  const notScored = (doc.not_scored ?? [])
    .filter((entry) => entry.leg === 'server')
    .map((entry) => {
      if (typeof entry.scenario !== 'string') throw new Error(`${file}: bad not_scored entry`);
      return entry.scenario;
    });
  return [...(doc.server as string[]), ...notScored];
}

/**
 * Every server scenario the installed suite lists (`conformance list --server`), in its order:
 * what `conformance server --suite all` runs.
 */
export function listedScenarios(): string[] {
  const ran = spawnSync(NODE22, [CONFORMANCE_CLI, 'list', '--server'], { encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(`conformance list --server: ${ran.stderr}`);
  const names = [...ran.stdout.matchAll(/^ {2}- (\S+) \[/gm)].map((match) => match[1] as string);
  if (names.length === 0)
    throw new Error(`conformance list --server listed nothing:\n${ran.stdout}`);
  return names;
}

/** Empties a run's output directory (the CLI adds timestamped directories to what is there). */
export async function resetResults(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}

interface Check {
  id?: string;
  status?: string;
  errorMessage?: string;
}

/**
 * A SKIPPED check a run accepts: the scenario and check it is, the message the suite gives (so a
 * skip for another reason still fails), and why it says nothing about the server.
 */
export interface AllowedSkip {
  readonly scenario: string;
  readonly check: string;
  readonly message: RegExp;
  readonly because: string;
}

/** Skips of the suite's own making, in every run that has their scenario. */
export const SUITE_SKIPS: readonly AllowedSkip[] = [
  {
    scenario: 'tasks-status-notifications',
    check: 'tasks-status-notifications',
    message: /SEP-2663 delivers notifications\/tasks via the SEP-2575 subscriptions\/listen stream/,
    because: 'the suite no longer checks task status notifications on a tools/call stream',
  },
];

/** The skills scenarios on a legacy revision: cache hints exist from 2026-07-28 only. */
export const LEGACY_SKILL_SKIPS: readonly AllowedSkip[] = [
  'sep-2640-skills-list-cache-attributes',
  'sep-2640-skills-get-cache-attributes',
].map((check) => ({
  scenario: 'sep-2640-skills-enumeration',
  check,
  message: /^not applicable on negotiated protocol 2025-11-25/,
  because: 'ttlMs and cacheScope are defined from 2026-07-28; legacy results carry none',
}));

export interface Verdict {
  /** What makes the run fail; empty when it passes. */
  problems: string[];
  /** INFO / WARNING checks, allowed skips and expected failures, for the log. */
  notes: string[];
  /** Scenarios found in the output directory. */
  scenarios: string[];
}

// server-<scenario>-<ISO timestamp with ':' and '.' replaced by '-'>, as the CLI names them.
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const REPORTED = new Set(['INFO', 'WARNING']);

/**
 * Reads every `checks.json` of a run in `dir` (emptied by `resetResults` before it) and judges it
 * against `expectedScenarios(revision)`. `expectedFailures` maps scenarios known to fail on this
 * target to the reason: each must then have a FAILURE (one that passes is a problem too, so the
 * list cannot go stale), and its failures are notes instead of problems. `allowedSkips` are the
 * SKIPPED checks that do not fail it.
 */
export function verifyResults(
  dir: string,
  revision: string,
  expectedFailures: Readonly<Record<string, string>> = {},
  allowedSkips: readonly AllowedSkip[] = SUITE_SKIPS,
): Verdict {
  return verifyRun(dir, {
    label: revision,
    expected: expectedScenarios(revision),
    expectedFailures,
    allowedSkips,
  });
}

export interface RunExpectation {
  /** What the run is called in problems (`2026-07-28`, `every server scenario`). */
  readonly label: string;
  /** The scenarios it must have run, each once, and no other. */
  readonly expected: readonly string[];
  readonly expectedFailures?: Readonly<Record<string, string>>;
  readonly allowedSkips?: readonly AllowedSkip[];
}

/**
 * `verifyResults` for any expected list. An allowed skip whose scenario ran without that SKIPPED
 * is a problem too: the list says what the suite does, and must not outlive it.
 */
export function verifyRun(dir: string, run: RunExpectation): Verdict {
  const { label, expectedFailures = {}, allowedSkips = SUITE_SKIPS } = run;
  const problems: string[] = [];
  const notes: string[] = [];
  const expected = new Set(run.expected);
  if (expected.size === 0) problems.push(`${label}: no scenario expected`);
  const seen = new Map<string, string>();
  for (const entry of readdirSync(dir).sort()) {
    const match = RESULT_DIR.exec(entry);
    if (!match) {
      problems.push(`unexpected entry in ${dir}: ${entry}`);
      continue;
    }
    const scenario = match[1] as string;
    if (seen.has(scenario)) problems.push(`${scenario}: ran more than once (${entry})`);
    seen.set(scenario, entry);
  }
  for (const [scenario, entry] of seen) {
    let checks: Check[];
    try {
      checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as Check[];
    } catch (error) {
      problems.push(`${scenario}: no readable checks.json (${String(error)})`);
      continue;
    }
    if (!Array.isArray(checks) || checks.length === 0) {
      problems.push(`${scenario}: no checks recorded`);
      continue;
    }
    const known = expectedFailures[scenario];
    const failures: string[] = [];
    const allowed = allowedSkips.filter((skip) => skip.scenario === scenario);
    const used = new Set<AllowedSkip>();
    for (const check of checks) {
      const line = `${scenario}: ${check.status} ${check.id}${check.errorMessage ? ` — ${check.errorMessage}` : ''}`;
      if (check.status === 'FAILURE') failures.push(line);
      else if (check.status === 'SKIPPED') {
        const skip = allowed.find(
          (s) => s.check === check.id && s.message.test(check.errorMessage ?? ''),
        );
        if (skip) {
          used.add(skip);
          notes.push(`allowed skip (${skip.because}): ${line}`);
        } else problems.push(`${line} (a SKIPPED that is not allowed)`);
      } else if (REPORTED.has(check.status ?? '')) notes.push(line);
      else if (check.status !== 'SUCCESS') problems.push(`${line} (unknown status)`);
    }
    for (const skip of allowed)
      if (!used.has(skip))
        problems.push(`${scenario}: allowed skip ${skip.check} (${skip.because}) did not happen`);
    if (known === undefined) problems.push(...failures);
    else if (failures.length === 0)
      problems.push(`${scenario}: listed as an expected failure (${known}) but passed`);
    else notes.push(...failures.map((line) => `expected failure (${known}): ${line}`));
  }
  for (const scenario of expected)
    if (!seen.has(scenario)) problems.push(`${scenario}: required by ${label} but not run`);
  for (const scenario of seen.keys())
    if (!expected.has(scenario)) problems.push(`${scenario}: run but not in ${label}`);
  for (const scenario of Object.keys(expectedFailures))
    if (!expected.has(scenario))
      problems.push(`${scenario}: listed as an expected failure but not in ${label}`);
  return { problems, notes, scenarios: [...seen.keys()] };
}

/** A verdict as text: the problems first, then the notes. */
export function formatVerdict(revision: string, verdict: Verdict): string {
  const lines = [
    `conformance ${revision}: ${verdict.scenarios.length} scenarios, ${verdict.problems.length} problems`,
    ...verdict.problems.map((line) => `  FAIL ${line}`),
    ...verdict.notes.map((line) => `  note ${line}`),
  ];
  return lines.join('\n');
}
