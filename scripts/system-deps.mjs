#!/usr/bin/env node
/**
 * The programs the tests drive that npm cannot bring: a headless Chromium (the auth-e2e tests in
 * packages/test-suite/auth-e2e), redis-server (the Redis tests start their own on loopback), nginx
 * and HAProxy (the proxy matrix).
 * `pnpm test` runs this first, so a newcomer's `pnpm test` on a fresh Debian-like machine works
 * as the only command: whatever is missing is installed with apt-get (as root, or with a sudo that
 * asks no password). Where that cannot be done, one message names what to install and the run
 * stops before any test starts, instead of a stack trace per test file.
 *
 * Each program can be pointed elsewhere with its environment variable (CHROMIUM_PATH,
 * REDIS_SERVER, NGINX, HAPROXY), which the tests read too; a program found that way is not
 * installed. `--check` only reports.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** Debian package, the binary the tests run, and the variable that overrides where it is. */
export const SYSTEM_PROGRAMS = [
  { apt: 'chromium', binary: '/usr/bin/chromium', env: 'CHROMIUM_PATH', for: 'auth-e2e (browser)' },
  { apt: 'redis-server', binary: '/usr/bin/redis-server', env: 'REDIS_SERVER', for: 'Redis tests' },
  { apt: 'nginx', binary: '/usr/sbin/nginx', env: 'NGINX', for: 'proxy matrix' },
  { apt: 'haproxy', binary: '/usr/sbin/haproxy', env: 'HAPROXY', for: 'proxy matrix' },
];

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const run = (command, args) =>
  spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  }).status === 0;

function missingPrograms() {
  return SYSTEM_PROGRAMS.filter((p) => !executable(process.env[p.env] || p.binary));
}

/** How to run apt-get: as is for root, through a password-less sudo otherwise; null if neither. */
function aptCommand() {
  if (typeof process.getuid === 'function' && process.getuid() === 0) return ['apt-get'];
  if (spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0)
    return ['sudo', '-n', 'apt-get'];
  return null;
}

function explain(missing, why) {
  const names = missing.map((p) => p.apt).join(' ');
  console.error(
    [
      `system-deps: the tests need ${missing.map((p) => `${p.apt} (${p.for})`).join(', ')}, and ${why}.`,
      `Install them, then run the tests again:`,
      `  sudo apt-get install -y --no-install-recommends ${names}`,
      `or point the tests at your own copies: ${missing.map((p) => `${p.env}=/path/to/${p.apt}`).join(' ')}`,
    ].join('\n'),
  );
}

function main() {
  const missing = missingPrograms();
  if (missing.length === 0) return 0;
  if (process.argv.includes('--check')) {
    explain(missing, 'they are not installed');
    return 1;
  }
  if (!executable('/usr/bin/apt-get')) {
    explain(missing, 'this machine has no apt-get');
    return 1;
  }
  const command = aptCommand();
  if (command === null) {
    explain(missing, 'this user cannot run apt-get (not root, no password-less sudo)');
    return 1;
  }
  const [bin, ...prefix] = command;
  const apt = (args) => run(bin, [...prefix, ...args]);
  console.log(`system-deps: installing ${missing.map((p) => p.apt).join(', ')} with apt-get`);
  const installed =
    apt(['update', '-qq']) &&
    apt(['install', '-y', '-qq', '--no-install-recommends', ...missing.map((p) => p.apt)]);
  const still = missingPrograms();
  if (!installed || still.length > 0) {
    explain(still.length ? still : missing, 'apt-get could not install them');
    return 1;
  }
  return 0;
}

process.exitCode = main();
