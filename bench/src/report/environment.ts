/** Date, machine and versions of a run. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem, type } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, bunBinary, denoBinary, wranglerVersion } from '../lib/paths.ts';
import { NODE_BINARY } from '../lib/spawn.ts';

const PACKAGES = [
  '@edge-mcp/core',
  '@edge-mcp/adapters',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/sdk',
  'mcp-lite',
  '@hono/node-server',
  'hono',
  'zod',
  'autocannon',
  'esbuild',
  'tsx',
];

function run(file: string | (() => string), args: string[]): string {
  try {
    const binary = typeof file === 'string' ? file : file();
    return execFileSync(binary, args, { cwd: BENCH_DIR, encoding: 'utf8' }).trim();
  } catch {
    return 'unavailable';
  }
}

export function environment() {
  const cpu = cpus();
  const packages: Record<string, string> = {};
  for (const name of PACKAGES) {
    const file = join(BENCH_DIR, 'node_modules', name, 'package.json');
    packages[name] = (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return {
    date: new Date().toISOString(),
    machine: {
      os: `${type()} ${release()} ${process.arch}`,
      cpuModel: cpu[0]?.model ?? 'unknown',
      cpuCount: cpu.length,
      memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    },
    versions: {
      node: run(NODE_BINARY, ['--version']),
      deno: (run(denoBinary, ['--version']).split(' (')[0] ?? '').replace('deno ', ''),
      bun: run(bunBinary, ['--version']),
      wrangler: (() => {
        try {
          return wranglerVersion();
        } catch {
          return 'unavailable';
        }
      })(),
      packages,
      git: run('git', ['rev-parse', '--short', 'HEAD']),
      gitDirty: run('git', ['status', '--porcelain', '--', '../packages']) !== '',
    },
  };
}

export type Environment = ReturnType<typeof environment>;
