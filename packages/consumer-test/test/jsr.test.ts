/**
 * JSR for Deno users: `deno publish --dry-run` of each package, without `--allow-slow-types`
 * (every export has an explicit type). The packages are copied out of the pnpm workspace into a
 * Deno workspace of their own, as a publish from a clean checkout would see them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { denoBinary } from '@edge-mcp/test-kit/node';
import { afterAll, expect, test } from 'vitest';
import { run } from '../src/exec.ts';
import { PACKAGE_DIR, PUBLISHED, WORKSPACE } from '../src/paths.ts';

const root = mkdtempSync(join(tmpdir(), 'edge-mcp-jsr-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

for (const name of PUBLISHED) {
  for (const part of ['src', 'jsr.json', 'README.md', 'LICENSE'])
    cpSync(join(WORKSPACE, 'packages', name, part), join(root, name, part), { recursive: true });
}
writeFileSync(
  join(root, 'deno.json'),
  JSON.stringify({ workspace: PUBLISHED.map((n) => `./${n}`) }),
);

test.each(PUBLISHED)(
  'deno publish --dry-run of @edge-mcp/%s passes without --allow-slow-types',
  (name) => {
    const ran = run(denoBinary(PACKAGE_DIR), ['publish', '--dry-run'], join(root, name), {
      DENO_NO_UPDATE_CHECK: '1',
      NO_COLOR: '1',
      // Deno trusts only its bundled roots unless told; a machine whose registry traffic passes
      // a TLS proxy with its own CA (in the system store) is then refused at the first download.
      DENO_TLS_CA_STORE: 'mozilla,system',
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).toContain('Success Dry run complete');
  },
);

const manifest = (name: string, file: string) =>
  JSON.parse(readFileSync(join(WORKSPACE, 'packages', name, file), 'utf8'));

test.each(PUBLISHED)(
  '@edge-mcp/%s: jsr.json has the npm version, its exports and the caret range of its siblings',
  (name) => {
    const npm = manifest(name, 'package.json');
    const jsr = manifest(name, 'jsr.json');
    expect(jsr.name).toBe(npm.name);
    expect(jsr.version).toBe(npm.version);
    // JSR serves the source, npm the build: the same subpaths either way, except an entry npm
    // picks by runtime condition (the adapters' "."), which JSR cannot express.
    const npmPaths = Object.entries(npm.exports)
      .filter(([, target]) => typeof target === 'string')
      .map(([path]) => path);
    expect(Object.keys(jsr.exports).sort()).toEqual(npmPaths.sort());
    for (const [key, target] of Object.entries<string>(jsr.imports ?? {})) {
      const sibling = /^jsr:(@edge-mcp\/[a-z-]+)@([^/]+)/.exec(target);
      if (!sibling) continue;
      const dir = (sibling[1] as string).slice('@edge-mcp/'.length);
      expect(sibling[2], key).toBe(`^${manifest(dir, 'package.json').version}`);
    }
  },
);
