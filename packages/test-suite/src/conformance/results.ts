/**
 * Strict reading of a conformance run (docs/design/tasks.md §4.10). The CLI exits non-zero only
 * for failures of *scored* scenarios; here every `FAILURE` counts, scored or `not_scored`, and
 * the scenarios run must be exactly the installed requirement set's server ones (`server` plus
 * the `not_scored` entries of leg `server`). SKIPPED, INFO and WARNING checks do not fail a run;
 * they are reported.
 *
 * Node only (node:fs): kept out of the fixture, which also runs on workerd.
 */
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

export interface Verdict {
  /** What makes the run fail; empty when it passes. */
  problems: string[];
  /** SKIPPED / INFO / WARNING checks and expected failures, for the log. */
  notes: string[];
  /** Scenarios found in the output directory. */
  scenarios: string[];
}

// server-<scenario>-<ISO timestamp with ':' and '.' replaced by '-'>, as the CLI names them.
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const REPORTED = new Set(['SKIPPED', 'INFO', 'WARNING']);

/**
 * Reads every `checks.json` of a run in `dir` (emptied by `resetResults` before it) and judges it
 * against `expectedScenarios(revision)`. `expectedFailures` maps scenarios known to fail on this
 * target to the reason: each must then have a FAILURE (one that passes is a problem too, so the
 * list cannot go stale), and its failures are notes instead of problems.
 */
export function verifyResults(
  dir: string,
  revision: string,
  expectedFailures: Readonly<Record<string, string>> = {},
): Verdict {
  const problems: string[] = [];
  const notes: string[] = [];
  const expected = new Set(expectedScenarios(revision));
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
    for (const check of checks) {
      const line = `${scenario}: ${check.status} ${check.id}${check.errorMessage ? ` — ${check.errorMessage}` : ''}`;
      if (check.status === 'FAILURE') failures.push(line);
      else if (REPORTED.has(check.status ?? '')) notes.push(line);
      else if (check.status !== 'SUCCESS') problems.push(`${line} (unknown status)`);
    }
    if (known === undefined) problems.push(...failures);
    else if (failures.length === 0)
      problems.push(`${scenario}: listed as an expected failure (${known}) but passed`);
    else notes.push(...failures.map((line) => `expected failure (${known}): ${line}`));
  }
  for (const scenario of expected)
    if (!seen.has(scenario)) problems.push(`${scenario}: required by ${revision} but not run`);
  for (const scenario of seen.keys())
    if (!expected.has(scenario)) problems.push(`${scenario}: run but not in ${revision}`);
  for (const scenario of Object.keys(expectedFailures))
    if (!expected.has(scenario))
      problems.push(`${scenario}: listed as an expected failure but not in ${revision}`);
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
