#!/usr/bin/env node
/**
 * `node scripts/launch.mjs <deno|bun> [args…]`: runs the real Deno or Bun binary of the package in
 * the current directory (its npm `deno` or `bun` devDependency) with `args`, passes SIGINT,
 * SIGTERM and SIGHUP on to it, and exits as it did.
 *
 * Why not the packages' own commands: npm's `deno` is a Node wrapper that runs the binary with
 * spawnSync and passes no signal on, so a SIGTERM to it (from `pnpm start`, which passes signals
 * to the command it runs) ends the wrapper and leaves Deno serving. The apps' start scripts
 * `exec` this launcher, so pnpm's signals reach it, and through it the runtime.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Resolves modules as a file of the package in the current directory would. */
const require = createRequire(join(process.cwd(), 'package.json'));

/** The deno binary: in its platform package (`@deno/linux-x64-glibc`, …) or next to the wrapper. */
function denoBinary() {
  const exe = process.platform === 'win32' ? 'deno.exe' : 'deno';
  const manifest = require.resolve('deno/package.json');
  const platform = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  try {
    return createRequire(manifest).resolve(`${platform}/${exe}`);
  } catch {
    const beside = join(dirname(manifest), exe);
    if (existsSync(beside)) return beside;
    throw new Error(`no Deno binary: ${platform} is not installed next to ${manifest}`);
  }
}

/** The bun binary, put in place of `bin/bun.exe` by the package's postinstall. */
function bunBinary() {
  const binary = join(dirname(require.resolve('bun/package.json')), 'bin', 'bun.exe');
  if (!existsSync(binary) || statSync(binary).size < 1_000_000) {
    throw new Error(`${binary} is not the Bun binary: bun's postinstall did not run`);
  }
  return binary;
}

const [runtime, ...args] = process.argv.slice(2);
const binaries = { deno: denoBinary, bun: bunBinary };
if (!(runtime in binaries)) {
  console.error('usage: node scripts/launch.mjs <deno|bun> [args…]');
  process.exit(2);
}

const child = spawn(binaries[runtime](), args, { stdio: 'inherit' });
const SIGNALS =
  process.platform === 'win32' ? ['SIGINT', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const name of SIGNALS) {
  process.on(name, () => {
    // The runtime may have had it already (a terminal's Ctrl+C reaches the whole process group);
    // the adapters take the same signal twice within 500 ms as one.
    child.kill(name);
  });
}
child.on('error', (error) => {
  console.error(`launch: cannot run ${runtime}:`, error.message);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Killed by a signal: end the same way, so the caller sees what happened.
  for (const name of SIGNALS) process.removeAllListeners(name);
  process.kill(process.pid, signal);
});
