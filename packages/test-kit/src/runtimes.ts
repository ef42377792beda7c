/**
 * The real Deno and Bun binaries of the npm packages `deno` and `bun`. Their `bin` entries are
 * Node wrappers that run the runtime with spawnSync: a test spawning those could neither signal
 * the runtime nor see its own exit code, and a kill would leave the runtime behind.
 */
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Resolves modules as a file of the package at `packageDir` would. */
function requireFrom(packageDir: string): NodeJS.Require {
  return createRequire(join(packageDir, 'package.json'));
}

/**
 * The npm platform package that carries Deno's binary (an optional dependency of `deno`):
 * `@deno/linux-x64-glibc`, `@deno/darwin-arm64`, `@deno/win32-x64`, …
 */
export function denoPlatformPackage(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): string {
  return `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`;
}

/**
 * The deno binary, for the `deno` package that `packageDir` depends on (npm:deno@2.x). Found in
 * its platform package, or next to the wrapper where the package's own postinstall put it.
 */
export function denoBinary(packageDir: string): string {
  const exe = process.platform === 'win32' ? 'deno.exe' : 'deno';
  const manifest = requireFrom(packageDir).resolve('deno/package.json');
  const platformPackage = denoPlatformPackage();
  try {
    return createRequire(manifest).resolve(`${platformPackage}/${exe}`);
  } catch (error) {
    const beside = join(dirname(manifest), exe);
    if (existsSync(beside)) return beside;
    throw new Error(
      `no Deno binary for ${process.platform}-${process.arch}: ${platformPackage} is not installed next to ${manifest}`,
      { cause: error },
    );
  }
}

/**
 * The bun binary, for the `bun` package that `packageDir` depends on (npm:bun@1.x). Its
 * postinstall replaces the placeholder `bin/bun.exe` (the name on every platform) with the binary.
 */
export function bunBinary(packageDir: string): string {
  const manifest = requireFrom(packageDir).resolve('bun/package.json');
  const binary = join(dirname(manifest), 'bin', 'bun.exe');
  // The placeholder is a few hundred bytes of text; the binary is tens of megabytes.
  if (!existsSync(binary) || statSync(binary).size < 1_000_000) {
    throw new Error(
      `${binary} is not the Bun binary: bun's postinstall did not run (allow it in pnpm-workspace.yaml allowBuilds)`,
    );
  }
  return binary;
}
