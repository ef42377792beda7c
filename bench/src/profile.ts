/**
 * `pnpm --filter @edge-mcp/bench profile`: CPU profile of edge-mcp on the Node adapter under the
 * bench's tools/call load, with self time per function at its TypeScript file:line.
 *
 * PROFILE_SCENARIOS (modern,legacy,initialize), PROFILE_SECONDS (10), PROFILE_TOP (25), BENCH_CONNECTIONS,
 * PROFILE_ENTRY (node-edge.ts; node-hono.ts or node-bare.ts to compare), PROFILE_MODE (the entry's
 * MODE, e.g. `edge` or `bare` for node-hono.ts).
 * The source-mapped .cpuprofile files (open them in Chrome DevTools) go to the OS temp directory.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProfileSummary } from './entries/node-profiler.ts';
import { getJson } from './lib/http.ts';
import { load } from './lib/load.ts';
import { type CallShape, checkEcho, echoCall, initializeShape, openSession } from './lib/mcp.ts';
import { jwksService } from './lib/services.ts';
import { startTarget } from './lib/spawn.ts';
import { LEGACY } from './targets.ts';

const scenarios = (process.env.PROFILE_SCENARIOS ?? 'modern,legacy,initialize').split(',');
const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
const top = Number(process.env.PROFILE_TOP ?? 25);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const dir = join(tmpdir(), 'edge-mcp-bench-profiles');
mkdirSync(dir, { recursive: true });

const mode = process.env.PROFILE_MODE;
const server = await startTarget({
  runtime: 'node',
  entry: process.env.PROFILE_ENTRY ?? 'node-edge.ts',
  // The auth modes verify the bench's token, as the auth targets do: its JWKS and its header.
  ...(mode?.startsWith('auth') ? { service: jwksService } : {}),
  env: {
    MAX_SESSIONS: '1000000',
    ...(mode ? { MODE: mode } : {}),
  },
});
try {
  for (const era of scenarios) {
    let shape: CallShape;
    if (era === 'initialize') shape = initializeShape(LEGACY);
    else {
      const sessionId = era === 'legacy' ? await openSession(server.mcpUrl, LEGACY) : undefined;
      shape = echoCall(era === 'legacy' ? 'legacy' : 'modern', LEGACY, sessionId);
    }
    shape = { ...shape, headers: { ...shape.headers, ...server.headers } };
    if (era !== 'initialize') await checkEcho(server.mcpUrl, shape);
    await load({ url: server.mcpUrl, shape, connections, duration: 2 });
    await getJson(`${server.sideUrl}/profile/start`);
    const result = await load({ url: server.mcpUrl, shape, connections, duration: seconds });
    const file = join(dir, `node-edge-${era}-${Date.now()}.cpuprofile`);
    const summary = await getJson<ProfileSummary>(
      `${server.sideUrl}/profile/stop?top=${top}&file=${encodeURIComponent(file)}`,
    );
    console.log(
      `\n## ${era === 'initialize' ? 'legacy initialize (a new session each)' : `${era} tools/call echo`}: ${result.rps.toFixed(0)} req/s while profiling; ${summary.totalMs.toFixed(0)} ms sampled; ${file}\n`,
    );
    console.log(
      '| self % | self ms | function | location |\n| -----: | ------: | -------- | -------- |',
    );
    for (const f of summary.functions) {
      console.log(`| ${f.selfPct} | ${f.selfMs} | ${f.functionName} | ${f.location} |`);
    }
    console.log('\n| self % | file |\n| -----: | ---- |');
    for (const f of summary.files) console.log(`| ${f.selfPct} | ${f.file} |`);
  }
} finally {
  await server.stop();
}
