/**
 * The tarballs as registries and tools read them: publint (package.json against the files) and
 * Are The Types Wrong (types resolved under node16 and bundler for every entry point), and the
 * packed package.json a user's npm sees.
 */
import { join } from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import { run } from '../src/exec.ts';
import { PACKAGE_DIR, PUBLISHED } from '../src/paths.ts';

const bin = (name: string) => join(PACKAGE_DIR, 'node_modules', '.bin', name);

/** Every file path an `exports` map names (conditions and subpaths, depth-first). */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === 'string') return [exports];
  if (exports === null || typeof exports !== 'object') return [];
  return Object.values(exports).flatMap(exportTargets);
}

describe.each(PUBLISHED)('the @edge-mcp/%s tarball', (name) => {
  test('ships dist/: every file its exports name is in the tarball', () => {
    const tarball = inject('tarballs')[name] as string;
    const files = new Set(
      run('tar', ['tzf', tarball], PACKAGE_DIR)
        .stdout.split('\n')
        .map((line) => line.replace(/^package\//, '')),
    );
    const manifest = JSON.parse(
      run('tar', ['xzOf', tarball, 'package/package.json'], PACKAGE_DIR).stdout,
    );
    const targets = exportTargets(manifest.exports);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      expect(target, 'exports point into dist/').toMatch(/^\.\/dist\//);
      expect(files.has(target.slice(2)), `${target} is in the tarball`).toBe(true);
    }
  });

  test('publint: no errors or warnings', () => {
    const ran = run(
      bin('publint'),
      ['run', inject('tarballs')[name] as string, '--strict'],
      PACKAGE_DIR,
    );
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
  });

  test('attw (ESM only): every entry point has types that resolve', () => {
    const ran = run(
      bin('attw'),
      [inject('tarballs')[name] as string, '--profile', 'esm-only', '--format', 'ascii'],
      PACKAGE_DIR,
    );
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
  });
});

test('the installed adapters depend on core by a semver range, not workspace:', () => {
  const manifest = join(inject('app'), 'node_modules', '@edge-mcp', 'adapters', 'package.json');
  const { dependencies, exports } = JSON.parse(
    run(
      process.execPath,
      [
        '-e',
        `process.stdout.write(require('fs').readFileSync(${JSON.stringify(manifest)}, 'utf8'))`,
      ],
      PACKAGE_DIR,
    ).stdout,
  );
  expect(dependencies['@edge-mcp/core']).toMatch(/^\^\d+\.\d+\.\d+$/);
  expect(JSON.stringify(exports)).not.toContain('/src/');
});
