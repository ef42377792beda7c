/**
 * The adapters README's server.ts (its Node section) against the installed packages: tsc finds
 * types for every import and reports nothing under `NodeNext` + `strict` + `skipLibCheck`, nor with
 * `exactOptionalPropertyTypes` and `lib: ["es2022", "dom"]`; and what tsc emits runs under node.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { modern, readAnswer } from '@edge-mcp/test-kit';
import { freePort } from '@edge-mcp/test-kit/node';
import { afterEach, expect, inject, test } from 'vitest';
import { run } from '../src/exec.ts';
import { WORKSPACE } from '../src/paths.ts';
import { type ServerProcess, startServer } from '../src/server-process.ts';

const TSC = join(WORKSPACE, 'node_modules', 'typescript', 'bin', 'tsc');

const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

function tsconfig(name: string, compilerOptions: Record<string, unknown>): string {
  const app = inject('app');
  writeFileSync(
    join(app, name),
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
      files: ['server.ts'],
    }),
  );
  return name;
}

test.each([
  ['NodeNext + strict + skipLibCheck', {}],
  [
    'exactOptionalPropertyTypes and lib es2022 + dom',
    { exactOptionalPropertyTypes: true, lib: ['es2022', 'dom'] },
  ],
])('tsc --noEmit: zero errors with %s', (_name, extra) => {
  const config = tsconfig(`tsconfig.${Object.keys(extra).length}.json`, { noEmit: true, ...extra });
  const ran = run(process.execPath, [TSC, '-p', config], inject('app'));
  expect(`${ran.stdout}${ran.stderr}`).toBe('');
  expect(ran.status).toBe(0);
});

test('the app tsc builds runs under plain node and serves tools/call', async () => {
  const app = inject('app');
  const config = tsconfig('tsconfig.build.json', { outDir: 'out' });
  const built = run(process.execPath, [TSC, '-p', config], app);
  expect(`${built.stdout}${built.stderr}`).toBe('');
  const port = await freePort();
  const server = await startServer(
    process.execPath,
    [join('out', 'server.js')],
    app,
    { PORT: String(port) },
    (line) => line.startsWith('MCP server on'),
  );
  running.push(server);
  const answer = await readAnswer(
    await fetch(
      `http://127.0.0.1:${port}/mcp`,
      modern('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
    ),
  );
  expect(answer.message.result.structuredContent).toEqual({ sum: 5 });
});
