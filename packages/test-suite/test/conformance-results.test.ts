/**
 * The strict reading of a conformance run (src/conformance/results.ts) on hand-made output
 * directories laid out as the CLI writes them: any FAILURE fails, scored or not, and so does a
 * SKIPPED the run does not allow; the scenarios run must be exactly the expected ones (a
 * requirement set's, or every server scenario the suite lists); expected failures must fail.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  expectedScenarios,
  LEGACY_SKILL_SKIPS,
  listedScenarios,
  resetResults,
  verifyResults,
  verifyRun,
} from '../src/conformance/results.ts';
import { conformanceRuns } from '../src/conformance/runs.ts';

const REVISION = '2026-07-28';
let dir: string;

function write(scenario: string, checks: unknown, stamp = '2026-12-01T03-10-26-680Z'): void {
  const at = join(dir, `server-${scenario}-${stamp}`);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'checks.json'), JSON.stringify(checks));
}

const ok = [{ id: 'a-check', status: 'SUCCESS' }];
/** What the suite writes for tasks-status-notifications, which it cannot check any more. */
const suiteSkip = {
  id: 'tasks-status-notifications',
  status: 'SKIPPED',
  errorMessage:
    'Skipped: SEP-2663 delivers notifications/tasks via the SEP-2575 subscriptions/listen stream, not via …',
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-results-'));
  for (const scenario of expectedScenarios(REVISION))
    write(scenario, scenario === 'tasks-status-notifications' ? [suiteSkip] : ok);
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

  test('a complete, clean run passes; INFO, WARNING and the allowed skips are notes', () => {
    write('caching', [...ok, { id: 'w', status: 'WARNING' }, { id: 'i', status: 'INFO' }]);
    const verdict = verifyResults(dir, REVISION);
    expect(verdict.problems).toEqual([]);
    expect(verdict.notes).toHaveLength(3);
    expect(verdict.scenarios).toHaveLength(50);
  });

  test('a SKIPPED fails unless allowed, for its scenario, check and message', () => {
    write('caching', [...ok, { id: 'c', status: 'SKIPPED', errorMessage: 'no feature' }]);
    write('tools-list', [suiteSkip]);
    expect(verifyResults(dir, REVISION).problems).toEqual([
      'caching: SKIPPED c — no feature (a SKIPPED that is not allowed)',
      `tools-list: SKIPPED tasks-status-notifications — ${suiteSkip.errorMessage} (a SKIPPED that is not allowed)`,
    ]);
  });

  test('an allowed skip that did not happen is a problem, and so is one for another reason', () => {
    const stale = readdirSync(dir).find((e) => e.startsWith('server-tasks-status-notifications-'));
    rmSync(join(dir, stale as string), { recursive: true });
    write('tasks-status-notifications', ok);
    expect(verifyResults(dir, REVISION).problems).toEqual([
      'tasks-status-notifications: allowed skip tasks-status-notifications (the suite no longer checks task status notifications on a tools/call stream) did not happen',
    ]);
    write('tasks-status-notifications', [
      { ...suiteSkip, errorMessage: 'Skipped: something else' },
    ]);
    expect(verifyResults(dir, REVISION).problems).toHaveLength(2);
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
    expect(verdict.notes).toContain('expected failure (why): tasks-lifecycle: FAILURE y');
  });

  test('resetResults empties the directory', async () => {
    await resetResults(dir);
    expect(readdirSync(dir)).toEqual([]);
    expect(verifyResults(dir, REVISION).problems).toHaveLength(50);
  });
});

describe('every server scenario', () => {
  test('the suite lists the three skills scenarios, and a pass runs them on both eras', () => {
    const listed = listedScenarios();
    expect(listed).toEqual(
      expect.arrayContaining([
        'sep-2640-skills-directory',
        'sep-2640-skills-enumeration',
        'sep-2640-skills-manifest',
        ...expectedScenarios('2026-07-28'),
        ...expectedScenarios('2025-11-25'),
      ]),
    );
    const runs = conformanceRuns();
    expect(runs.map((run) => run.name)).toEqual([
      '2026-07-28',
      '2025-11-25',
      'all',
      'skills-2025-11-25',
    ]);
    expect(runs.find((run) => run.name === 'all')?.expected).toEqual(listed);
    const legacy = runs.find((run) => run.name === 'skills-2025-11-25');
    expect(legacy?.expected).toEqual(listed.filter((name) => name.startsWith('sep-2640-')));
    expect(legacy?.invocations).toHaveLength(3);
  });

  test('on 2025-11-25 only the cache hint checks of the skills scenarios may be skipped', () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const skills = [
      'sep-2640-skills-directory',
      'sep-2640-skills-enumeration',
      'sep-2640-skills-manifest',
    ];
    const notApplicable = (id: string) => ({
      id,
      status: 'SKIPPED',
      errorMessage:
        'not applicable on negotiated protocol 2025-11-25: ttlMs and cacheScope are defined from 2026-07-28',
    });
    write('sep-2640-skills-directory', ok);
    write('sep-2640-skills-manifest', ok);
    write('sep-2640-skills-enumeration', [
      ...ok,
      notApplicable('sep-2640-skills-list-cache-attributes'),
      notApplicable('sep-2640-skills-get-cache-attributes'),
    ]);
    const run = { label: 'skills', expected: skills, allowedSkips: LEGACY_SKILL_SKIPS };
    expect(verifyRun(dir, run).problems).toEqual([]);
    const undeclared = {
      id: 'sep-2640-skillmd-mimetype',
      status: 'SKIPPED',
      errorMessage: 'Server did not declare the io.modelcontextprotocol/skills extension',
    };
    write('sep-2640-skills-manifest', [undeclared], '2026-12-01T05-00-00-000Z');
    expect(verifyRun(dir, run).problems).toEqual([
      'sep-2640-skills-manifest: ran more than once (server-sep-2640-skills-manifest-2026-12-01T05-00-00-000Z)',
      `sep-2640-skills-manifest: SKIPPED sep-2640-skillmd-mimetype — ${undeclared.errorMessage} (a SKIPPED that is not allowed)`,
    ]);
  });
});
