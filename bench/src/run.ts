/**
 * `pnpm bench`: every target, one after another, in one invocation; then results JSON, the
 * chart, the README's Results section (full runs only) and the tables on stdout.
 */
import { config, selected } from './config.ts';
import { type DisconnectRow, runDisconnect } from './measures/disconnect.ts';
import { runSessions, type SessionRow } from './measures/sessions.ts';
import { runShutdown, type ShutdownRow } from './measures/shutdown.ts';
import { runThroughput, type ThroughputRow } from './measures/throughput.ts';
import { environment } from './report/environment.ts';
import { judge } from './report/goals.ts';
import { writeOutputs } from './report/write.ts';
import { DISCONNECT_TARGETS, SESSION_TARGETS, THROUGHPUT } from './targets.ts';

const started = performance.now();
const log = (line: string) =>
  console.error(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);

const env = environment();
log(`${env.machine.cpuModel} × ${env.machine.cpuCount}; measures: ${config.measures.join(', ')}`);

let throughput: ThroughputRow[] = [];
let sessions: SessionRow[] = [];
const disconnect: DisconnectRow[] = [];
let shutdown: ShutdownRow | null = null;

if (config.measures.includes('throughput')) {
  log(`throughput: ${config.warmup} s warm-up + ${config.duration} s per scenario`);
  throughput = await runThroughput(THROUGHPUT, config, log);
}
if (config.measures.includes('sessions')) {
  log(`sessions: ${config.sessions} idle legacy sessions per target`);
  const targets = SESSION_TARGETS.filter((t) => selected(t.id, t.spec.runtime));
  sessions = await runSessions(targets, config, log);
}
if (config.measures.includes('disconnect')) {
  for (const target of DISCONNECT_TARGETS) {
    if (!selected(`${target.runtime}/edge-mcp`, target.runtime)) continue;
    try {
      const row = await runDisconnect(target.runtime, target.spec, config.drops);
      disconnect.push(row);
      log(
        `disconnect ${target.runtime}: p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms, ${row.failures} failed`,
      );
    } catch (error) {
      log(`disconnect ${target.runtime}: ${error instanceof Error ? error.message : error}`);
    }
  }
}
if (config.measures.includes('shutdown') && selected('node/edge-mcp', 'node')) {
  try {
    shutdown = await runShutdown({ runtime: 'node', entry: 'node-edge.ts' }, config);
    log(`shutdown: ${shutdown.exitMs.toFixed(1)} ms to exit (code ${shutdown.exitCode})`);
  } catch (error) {
    log(`shutdown: ${error instanceof Error ? error.message : error}`);
  }
}

const results = { throughput, sessions, disconnect, shutdown };
const goals = judge(results);
const { partial, out, ...knobs } = config;
const report = { ...env, config: { ...knobs, partial }, results, goals };
console.log(`\n${writeOutputs(report, out, log)}\n`);
