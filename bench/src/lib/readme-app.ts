/**
 * The README's smallest server as a user runs it (issue 25): `@edge-mcp/core` and
 * `@edge-mcp/adapters` packed from this workspace (`pnpm pack`, whose prepack builds dist/ as a
 * publish does), installed with npm in a project outside the workspace with zod, and the
 * README's `server.mjs` written there as it stands (`as-written`, its request log on) and without
 * its request log (`no-log`). Each runtime runs it with the README's own command line. The
 * README's Cloudflare Worker (`worker.ts` and `wrangler.jsonc`, `createSessionWorker`) is written
 * beside it for `wrangler dev`. Made once per bench process; a README whose server or commands no
 * longer match what is read here fails the bench rather than measuring something else.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, bunBinary, denoBinary, NODE_BINARY } from './paths.ts';

export type ReadmeVariant = 'as-written' | 'no-log';
export type ReadmeRuntime = 'node' | 'deno' | 'bun';

const WORKSPACE = join(BENCH_DIR, '..');
const FILE = 'server.mjs';
/** The README's Worker files, run by `wrangler dev --config wrangler.jsonc` in the project. */
export const WORKER_FILE = 'worker.ts';
export const WORKER_CONFIG = 'wrangler.jsonc';
/** The request log's option in the README's server, dropped for `no-log`. */
const LOG_OPTION = /\{ onRequest: requestLog\(\) \}/;

let made: string | undefined;

/** The README's server file and the command lines of its `sh` block (what each runtime adds). */
export function readmeServer(): { source: string; commands: Map<ReadmeRuntime, string[]> } {
  const text = readFileSync(join(WORKSPACE, 'README.md'), 'utf8');
  const source = readmeFile(text, 'js', FILE);
  const commands = new Map<ReadmeRuntime, string[]>();
  const after = text.slice(text.indexOf('// file: server.mjs'));
  const block = /```sh\n([\s\S]*?)```/.exec(after)?.[1] ?? '';
  for (const line of block.split('\n')) {
    const words = line.replace(/#.*/, '').trim().split(/\s+/);
    const runtime = words[0] as ReadmeRuntime;
    if (['node', 'deno', 'bun'].includes(runtime) && words.at(-1) === FILE)
      commands.set(runtime, words.slice(1, -1));
  }
  if (commands.size !== 3) throw new Error(`README.md's run commands not found in:\n${block}`);
  return { source, commands };
}

/** The README's `// file: name` block in the language `lang`, as written. */
function readmeFile(text: string, lang: string, name: string): string {
  const marker = `\`\`\`${lang}\n// file: ${name}\n`;
  const start = text.indexOf(marker);
  if (start < 0) throw new Error(`README.md shows no \`// file: ${name}\` block`);
  const body = text.slice(start + marker.length);
  return `// file: ${name}\n${body.slice(0, body.indexOf('```'))}`;
}

/** The README's Worker: its module and its wrangler config, as written. */
export function readmeWorker(): { worker: string; config: string } {
  const text = readFileSync(join(WORKSPACE, 'README.md'), 'utf8');
  return {
    worker: readmeFile(text, 'ts', WORKER_FILE),
    config: readmeFile(text, 'jsonc', WORKER_CONFIG),
  };
}

/** The project directory, made on first use (packing and installing take a minute). */
export function readmeApp(): string {
  if (made) return made;
  const root = mkdtempSync(join(tmpdir(), 'edge-mcp-bench-readme-'));
  const packs = join(root, 'packs');
  const app = join(root, 'app');
  mkdirSync(packs);
  mkdirSync(app);
  const tarball = (name: string): string => {
    const before = new Set(readdirSync(packs));
    execFileSync('pnpm', ['pack', '--pack-destination', packs], {
      cwd: join(WORKSPACE, 'packages', name),
      stdio: 'ignore',
    });
    const file = readdirSync(packs).find((f) => !before.has(f) && f.endsWith('.tgz'));
    if (!file) throw new Error(`pnpm pack made no tarball for ${name}`);
    return join(packs, file);
  };
  const zod = JSON.parse(readFileSync(join(WORKSPACE, 'packages', 'core', 'package.json'), 'utf8'))
    .devDependencies.zod as string;
  const dependencies = {
    '@edge-mcp/core': `file:${tarball('core')}`,
    '@edge-mcp/adapters': `file:${tarball('adapters')}`,
    zod,
  };
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'readme-server', private: true, type: 'module', dependencies }),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: app,
    stdio: 'ignore',
  });
  const { source } = readmeServer();
  if (!LOG_OPTION.test(source)) throw new Error("the README's server has no request log to drop");
  writeFileSync(join(app, FILE), source);
  writeFileSync(join(app, fileOf('no-log')), source.replace(LOG_OPTION, '{}'));
  const { worker, config } = readmeWorker();
  writeFileSync(join(app, WORKER_FILE), worker);
  writeFileSync(join(app, WORKER_CONFIG), config);
  made = app;
  return app;
}

function fileOf(variant: ReadmeVariant): string {
  return variant === 'as-written' ? FILE : 'server-no-log.mjs';
}

/** How the README runs the server on `runtime` (its flags, nothing added). */
export function readmeCommand(runtime: ReadmeRuntime, variant: ReadmeVariant): [string, string[]] {
  const flags = readmeServer().commands.get(runtime) as string[];
  const binary = runtime === 'node' ? NODE_BINARY : runtime === 'deno' ? denoBinary() : bunBinary();
  return [binary, [...flags, fileOf(variant)]];
}
