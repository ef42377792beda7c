/**
 * Start-up: from spawning the runtime on a bundle (src/lib/bundle.ts) to the first answered
 * `tools/call` echo, tried every millisecond; one uncounted start per target first, then
 * `config.starts` passes per round in the round's order. README.md, Method.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sleep } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import type { Config } from '../config.ts';
import { type Bundle, bundle } from '../lib/bundle.ts';
import { httpRequest } from '../lib/http.ts';
import { echoCall, echoText } from '../lib/mcp.ts';
import { readmeApp, readmeCommand } from '../lib/readme-app.ts';
import { messageOf, rotation } from '../lib/rounds.ts';
import { kill, NODE_BINARY, runtimeCommand, spawnChild } from '../lib/spawn.ts';
import { median, pairedRatios, roundMedians, spread } from '../lib/stats.ts';
import { groupCpuMs, loadAverage } from '../lib/system.ts';
import type { StartupTarget } from '../targets.ts';

export interface StartupSample {
  round: number;
  load1: number;
  /** Spawn → first answer. */
  ms: number;
  /** Attempts until one was answered (connection refused before the server listened). */
  attempts: number;
  /**
   * CPU time the process had used when its answer arrived (all its threads; Linux): it moves
   * much less than the wall time when other work shares the machine.
   */
  cpuMs: number | null;
}

export type StartupRow = Awaited<ReturnType<typeof runStartup>>[number];

const TIMEOUT_MS = 30_000;

/** What a start spawns, and where. */
export interface Start {
  command: [string, string[]];
  cwd: string;
}

/** A start of `file` by the runtime, in its directory, with the bench's command line. */
export const startOf = (runtime: StartupTarget['runtime'], file: string): Start => ({
  command: runtime === 'node' ? [NODE_BINARY, [file]] : runtimeCommand(runtime, file),
  cwd: dirname(file),
});

const ECHO = echoCall('modern', '2025-11-25');

/** One start: spawn, call until answered, kill. */
export async function startOnce(
  start: Start,
): Promise<{ ms: number; attempts: number; cpuMs: number | null }> {
  const port = await freePort();
  const [binary, args] = start.command;
  const started = performance.now();
  const env = { ...process.env, PORT: String(port), DENO_NO_UPDATE_CHECK: '1' };
  const { child, exited, output } = spawnChild(binary, args, env, start.cwd);
  try {
    const url = `http://127.0.0.1:${port}/mcp`;
    for (let attempts = 1; ; attempts++) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`exited before it answered:\n${output()}`);
      }
      try {
        const answer = await httpRequest(url, {
          method: 'POST',
          headers: ECHO.headers,
          body: ECHO.body(1),
        });
        const ms = performance.now() - started;
        const cpuMs = child.pid === undefined ? null : groupCpuMs(child.pid);
        if (answer.status !== 200 || echoText(answer) !== 'hello') {
          throw new Error(`wrong answer: ${answer.status} ${answer.body.slice(0, 300)}`);
        }
        return { ms, attempts, cpuMs };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') throw error;
      }
      if (performance.now() - started > TIMEOUT_MS)
        throw new Error(`no answer within ${TIMEOUT_MS} ms`);
      await sleep(1);
    }
  } finally {
    kill(child, 'SIGKILL', true);
    await exited;
  }
}

export async function runStartup(
  targets: readonly StartupTarget[],
  config: Config,
  log: (line: string) => void,
) {
  // The run's own directory: runs at the same time must not start each other's bundles.
  const dir = mkdtempSync(join(tmpdir(), 'edge-mcp-bench-startup-'));
  try {
    return await measure(targets, config, log, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measure(
  targets: readonly StartupTarget[],
  config: Config,
  log: (line: string) => void,
  dir: string,
) {
  const bundles = new Map<StartupTarget, Bundle & Start>();
  const samples = new Map<StartupTarget, StartupSample[]>();
  const errors = new Map<StartupTarget, string[]>();
  const fail = (target: StartupTarget, message: string) => {
    errors.get(target)!.push(message);
    log(`start-up ${target.id}: ${message}`);
  };
  for (const target of targets) {
    samples.set(target, []);
    errors.set(target, []);
    try {
      const built = await prepare(target, dir);
      bundles.set(target, built);
      // Uncounted: fills the OS cache and the runtime's own module cache.
      await startOnce(built);
    } catch (error) {
      fail(target, `bundle or first start: ${messageOf(error)}`);
    }
  }
  const runnable = targets.filter((target) => bundles.has(target));
  for (let round = 0; round < config.rounds; round++) {
    const order = rotation(runnable, round, config.rounds);
    for (let pass = 0; pass < config.starts; pass++) {
      for (const target of order) {
        const load1 = loadAverage()[0];
        try {
          const start = await startOnce(bundles.get(target)!);
          samples.get(target)!.push({ round, load1, ...start });
        } catch (error) {
          fail(target, `round ${round + 1}: ${messageOf(error)}`);
        }
      }
    }
    for (const target of order) {
      const mine = samples.get(target)!.filter((s) => s.round === round);
      if (mine.length === 0) continue;
      log(
        `round ${round + 1}/${config.rounds}  start-up ${target.id.padEnd(16)} median ${median(mine.map((s) => s.ms)).toFixed(1)} ms over ${mine.length}  (load ${mine[0]!.load1.toFixed(2)})`,
      );
    }
  }
  const byRound = (target: StartupTarget) => roundMedians(samples.get(target)!, (s) => s.ms);
  return targets.map((target) => {
    const base = targets.find((t) => t.id === target.baseline);
    const mine = byRound(target);
    return {
      id: target.id,
      label: target.label,
      runtime: target.runtime as string,
      library: target.library,
      baseline: target.baseline ?? null,
      // Size of the file started (without what it loads from node_modules).
      bundleBytes: bundles.get(target)?.bytes ?? 0,
      samples: samples.get(target)!,
      ms: spread(samples.get(target)!.map((s) => s.ms)),
      cpuMs: spread(samples.get(target)!.map((s) => s.cpuMs)),
      // The median start of each round, and its ratio to the baseline's.
      roundMs: spread([...mine.values()]),
      ratio: base ? spread(pairedRatios(mine, byRound(base))) : null,
      errors: errors.get(target)!,
    };
  });
}

/** The file a target starts, and how: the README's server, or a bundle (lib/bundle.ts). */
async function prepare(target: StartupTarget, dir: string): Promise<Bundle & Start> {
  const { runtime, spec } = target;
  if (spec.readme) {
    const cwd = readmeApp();
    const command = readmeCommand(runtime, spec.readme);
    const file = join(cwd, command[1].at(-1)!);
    return { file, bytes: statSync(file).size, command, cwd };
  }
  const built = await bundle(
    spec.entry,
    runtime,
    spec.installed ? readmeApp() : dir,
    spec.installed,
  );
  return { ...built, ...startOf(runtime, built.file) };
}
