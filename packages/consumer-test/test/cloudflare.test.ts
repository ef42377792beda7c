/**
 * The README's Worker (a Durable Object session class and the session Worker) bundled by
 * wrangler from the installed packages, as `wrangler deploy` would upload it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject, test } from 'vitest';
import { run } from '../src/exec.ts';
import { PACKAGE_DIR } from '../src/paths.ts';

test('wrangler deploy --dry-run bundles worker.ts with the published build', () => {
  const app = inject('app');
  const wrangler = join(PACKAGE_DIR, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const ran = run(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', 'dist'], app, {
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_SEND_ERROR_REPORTS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    CI: 'true',
  });
  expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
  const bundle = join(app, 'dist', 'worker.js');
  expect(existsSync(bundle)).toBe(true);
  const code = readFileSync(bundle, 'utf8');
  // The Cloudflare entry of the build (not the Node one) and the Durable Object class export.
  expect(code).toMatch(/export\s*\{[^}]*McpSession/);
  expect(code).toContain('node_modules/@edge-mcp/adapters/dist/cloudflare/');
  expect(code).not.toContain('node_modules/@edge-mcp/adapters/dist/node/');
});
