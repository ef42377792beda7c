/**
 * JSR for Deno users: `deno publish --dry-run` of each package, without `--allow-slow-types`
 * (every export has an explicit type). The packages are copied out of the pnpm workspace into a
 * Deno workspace of their own, as a publish from a clean checkout would see them.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).toContain('Success Dry run complete');
  },
);
