/**
 * The strict reading of a conformance run (src/conformance/results.ts) on hand-made output
 * directories laid out as the CLI writes them: any FAILURE fails, scored or not; the scenarios
 * run must be exactly the installed requirement set's; expected failures must fail.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { expectedScenarios, resetResults, verifyResults } from '../src/conformance/results.ts';

const REVISION = '2026-07-28';
let dir: string;

function write(scenario: string, checks: unknown, stamp = '2026-12-01T03-10-26-680Z'): void {
  const at = join(dir, `server-${scenario}-${stamp}`);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'checks.json'), JSON.stringify(checks));
}

const ok = [{ id: 'a-check', status: 'SUCCESS' }];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-results-'));
  for (const scenario of expectedScenarios(REVISION)) write(scenario, ok);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('verifyResults', () => {
  test('the installed 2026-07-28 set: 37 scored + 13 not scored server scenarios', () => {
    const scenarios = expectedScenarios(REVISION);
    expect(scenarios).toHaveLength(50);
    expect(scenarios).toContain('tasks-lifecycle');
    expect(scenarios).toContain('http-header-validation');
    expect(expectedScenarios('2025-11-25')).toHaveLength(33);
  });

  test('a complete, clean run passes; SKIPPED, INFO and WARNING are notes', () => {
    write('tasks-status-notifications', [{ id: 'skipped', status: 'SKIPPED', errorMessage: 'x' }]);
    write('caching', [...ok, { id: 'w', status: 'WARNING' }, { id: 'i', status: 'INFO' }]);
    const verdict = verifyResults(dir, REVISION);
    expect(verdict.problems).toEqual([]);
    expect(verdict.notes).toHaveLength(3);
    expect(verdict.scenarios).toHaveLength(50);
  });

  test('a FAILURE fails, in a not_scored scenario too', () => {
    write('tasks-mrtr-input', [...ok, { id: 'x', status: 'FAILURE', errorMessage: 'boom' }]);
    const verdict = verifyResults(dir, REVISION);
    expect(verdict.problems).toEqual(['tasks-mrtr-input: FAILURE x — boom']);
  });

  test('a missing, an extra or a repeated scenario fails, and so does a missing checks.json', () => {
    const [first] = readdirSync(dir).filter((e) => e.startsWith('server-caching-'));
    rmSync(join(dir, first as string), { recursive: true });
    write('not-a-scenario', ok);
    write('tools-list', ok, '2026-12-01T04-00-00-000Z');
    mkdirSync(join(dir, 'server-prompts-list-2026-12-01T04-00-00-000Z'));
    const problems = verifyResults(dir, REVISION).problems.join('\n');
    expect(problems).toContain('caching: required by 2026-07-28 but not run');
    expect(problems).toContain('not-a-scenario: run but not in 2026-07-28');
    expect(problems).toContain('tools-list: ran more than once');
    expect(problems).toContain('prompts-list: ran more than once');
    expect(problems).toMatch(/prompts-list: no readable checks\.json/);
  });

  test('an expected failure must fail; one that passes is a problem', () => {
    write('tasks-lifecycle', [{ id: 'y', status: 'FAILURE' }]);
    const expected = { 'tasks-lifecycle': 'why', 'tasks-wire-fields': 'why' };
    const verdict = verifyResults(dir, REVISION, expected);
    expect(verdict.problems).toEqual([
      'tasks-wire-fields: listed as an expected failure (why) but passed',
    ]);
    expect(verdict.notes).toEqual(['expected failure (why): tasks-lifecycle: FAILURE y']);
  });

  test('resetResults empties the directory', async () => {
    await resetResults(dir);
    expect(readdirSync(dir)).toEqual([]);
    expect(verifyResults(dir, REVISION).problems).toHaveLength(50);
  });
});
