/**
 * Every runnable file the READMEs and docs show (src/readme.ts), as installed from the tarballs:
 * each `.ts` file type-checks under tsc (strict, NodeNext; and with exactOptionalPropertyTypes),
 * and each runs as src/checks.ts says: scripts to their end under plain Node, servers on the
 * runtimes they are for, until SIGTERM ends them gracefully.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modern, readAnswer } from '@edge-mcp/test-kit';
import { bunBinary, denoBinary, freePort } from '@edge-mcp/test-kit/node';
import { afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { CHECKS, type Check, type Runtime } from '../src/checks.ts';
import { PACKAGE_DIR, WORKSPACE } from '../src/paths.ts';
import { documentFiles } from '../src/readme.ts';
import { type ServerProcess, startServer } from '../src/server-process.ts';

const TSC = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');
/** Where tsc puts the JavaScript of the documents' `.ts` files. */
const OUT = 'out-documents';

const files = documentFiles();
const typescript = [...files.keys()].filter((name) => name.endsWith('.ts')).sort();
const checked = (kind: Check['kind']) =>
  Object.entries(CHECKS).filter(([, check]) => check.kind === kind);

function tsc(app: string, config: string, compilerOptions: Record<string, unknown>) {
  writeFileSync(
    join(app, config),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'es2022',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        ...compilerOptions,
      },
      files: typescript,
    }),
  );
  return spawnSync(process.execPath, [TSC, '-p', config], {
    cwd: app,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

test('every file the documents show has a check, and every check a file', () => {
  expect(Object.keys(CHECKS).sort()).toEqual([...files.keys()].sort());
  for (const [name, check] of Object.entries(CHECKS)) {
    if (check.kind === 'own')
      expect(existsSync(join(PACKAGE_DIR, 'test', check.test)), name).toBe(true);
    if (check.kind === 'types')
      expect(name, 'only TypeScript can be type-checked').toMatch(/\.ts$/);
  }
});

describe('tsc', () => {
  beforeAll(() => {
    const built = tsc(inject('app'), 'tsconfig.documents.json', { outDir: OUT });
    expect(`${built.stdout}${built.stderr}`).toBe('');
  });

  test('builds every .ts file of the documents with zero errors (strict, NodeNext)', () => {
    for (const name of typescript)
      expect(existsSync(join(inject('app'), OUT, name.replace(/\.ts$/, '.js'))), name).toBe(true);
  });

  test('zero errors with exactOptionalPropertyTypes and lib es2022 + dom', () => {
    const ran = tsc(inject('app'), 'tsconfig.documents-strict.json', {
      noEmit: true,
      exactOptionalPropertyTypes: true,
      lib: ['es2022', 'dom'],
    });
    expect(`${ran.stdout}${ran.stderr}`).toBe('');
    expect(ran.status).toBe(0);
  });

  /** What plain Node runs: the file itself, or for TypeScript what tsc built. */
  const nodeEntry = (name: string) =>
    name.endsWith('.ts') ? join(OUT, name.replace(/\.ts$/, '.js')) : name;

  test.each(checked('script'))('%s runs to its end under plain node', (name, check) => {
    const ran = spawnSync(process.execPath, [nodeEntry(name)], {
      cwd: inject('app'),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    if (check.kind === 'script' && check.prints) expect(ran.stdout).toMatch(check.prints);
  });

  const running: ServerProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.stop()));
  });

  const commands: Record<Runtime, (name: string) => [string, string[]]> = {
    node: (name) => [process.execPath, [nodeEntry(name)]],
    deno: (name) => [
      denoBinary(PACKAGE_DIR),
      ['run', '--allow-net', '--allow-env', '--unstable-no-legacy-abort', name],
    ],
    bun: (name) => [bunBinary(PACKAGE_DIR), [name]],
  };
  const servers = checked('server').flatMap(([name, check]) =>
    check.kind === 'server' ? check.runtimes.map((runtime) => [name, runtime, check] as const) : [],
  );

  test.each(servers)('%s serves on %s', async (name, runtime, check) => {
    if (check.kind !== 'server') return;
    const port = await freePort();
    const [binary, args] = commands[runtime](name);
    const ready = (line: string) => line.startsWith('MCP server on');
    const server = await startServer(binary, args, inject('app'), { PORT: String(port) }, ready);
    running.push(server);
    const url = `http://127.0.0.1:${port}/mcp`;
    expect(await server.line(ready, 'the start line')).toBe(`MCP server on ${url}`);

    if ((check.probe ?? 'discover') === 'discover') {
      const answer = await readAnswer(await fetch(url, modern('server/discover')));
      expect(answer.status).toBe(200);
      expect(answer.message.result.supportedVersions).toContain('2026-07-28');
    } else {
      const refused = await fetch(url, modern('tools/list'));
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+"/);
      const metadata = await fetch(
        `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`,
      );
      expect(metadata.status).toBe(200);
      expect((await metadata.json()).authorization_servers).toHaveLength(1);
    }

    if (check.graceful === false) return;
    await server.stop();
    expect(server.child.exitCode, 'SIGTERM: a graceful shutdown, exit code 0').toBe(0);
  });
});
