/**
 * The README targets (issue 25) measure the README's server as users run it: the file and the
 * command lines are read from the README itself, the request log can be dropped, and their goals
 * are on CPU per call.
 */
import { describe, expect, test } from 'vitest';
import { readmeServer } from '../src/lib/readme-app.ts';
import { THROUGHPUT_TARGETS } from '../src/targets.ts';

describe('the README targets', () => {
  test("read the README's server and its three command lines, nothing added", () => {
    const { source, commands } = readmeServer();
    expect(source).toContain("from '@edge-mcp/adapters'");
    expect(source).toMatch(/\{ onRequest: requestLog\(\) \}/);
    expect(commands.get('node')).toEqual([]);
    expect(commands.get('bun')).toEqual([]);
    // As the README runs Deno: its permissions, no flag of the bench's own.
    expect(commands.get('deno')).toEqual(['run', '--allow-net', '--allow-env']);
  });

  test('are judged on CPU per call against the bare handler, the log against the quiet server', () => {
    const readme = THROUGHPUT_TARGETS.filter((t) => t.spec.readme !== undefined);
    expect(readme.map((t) => t.id).sort()).toEqual(
      ['node', 'deno', 'bun']
        .flatMap((r) => [
          `${r}/readme/modern`,
          `${r}/readme/legacy-session`,
          `${r}/readme-log/modern`,
        ])
        .sort(),
    );
    for (const target of readme) {
      expect(target.goals?.map((g) => g.of)).toEqual(['cpu']);
      expect(target.baseline).toBe(
        target.id.includes('readme-log')
          ? `${target.runtime}/readme/modern`
          : `${target.runtime}/bare`,
      );
    }
  });
});
