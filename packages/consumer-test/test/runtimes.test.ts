/**
 * The README's server.mjs, as installed from the tarballs, under plain Node 20 (no tsx, no
 * loader), Deno and Bun: `@edge-mcp/adapters` picks each runtime's adapter by export condition.
 * Each serves tools/call and cancels a call whose client disconnects.
 */

import { modern, readAnswer, SseReader } from '@edge-mcp/test-kit';
import { bunBinary, denoBinary, freePort } from '@edge-mcp/test-kit/node';
import { afterEach, describe, expect, inject, test } from 'vitest';
import { PACKAGE_DIR } from '../src/paths.ts';
import { type ServerProcess, startServer } from '../src/server-process.ts';

const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.stop()));
});

/** How each runtime runs the README's server.mjs (the README's own command lines). */
const RUNTIMES: ReadonlyArray<[string, () => [string, string[]]]> = [
  ['node', () => [process.execPath, ['server.mjs']]],
  ['deno', () => [denoBinary(PACKAGE_DIR), ['run', '--allow-net', '--allow-env', 'server.mjs']]],
  ['bun', () => [bunBinary(PACKAGE_DIR), ['server.mjs']]],
];

describe.each(RUNTIMES)('server.mjs from the README under %s', (_runtime, command) => {
  test('serves tools/call and cancels a call whose client leaves', async () => {
    const port = await freePort();
    const [binary, args] = command();
    const server = await startServer(binary, args, inject('app'), { PORT: String(port) }, (line) =>
      line.startsWith('MCP server on'),
    );
    running.push(server);
    const url = `http://127.0.0.1:${port}/mcp`;
    expect(await server.line((l) => l.startsWith('MCP server on'), 'the start line')).toBe(
      `MCP server on http://127.0.0.1:${port}/mcp`,
    );

    const echoed = await readAnswer(
      await fetch(url, modern('tools/call', { name: 'echo', arguments: { text: 'hello' } })),
    );
    expect(echoed.message.result.content).toEqual([{ type: 'text', text: 'hello' }]);

    // A 30 s sleep that reports progress at once: the first event proves the handler runs, then
    // the client goes away and the request log must say the handler was cancelled for it.
    const client = new AbortController();
    const response = await fetch(
      url,
      modern(
        'tools/call',
        { name: 'sleep', arguments: { ms: 30_000 } },
        { id: 'dropped', signal: client.signal, meta: { progressToken: 'p' } },
      ),
    );
    const first = await new SseReader(response).message();
    expect(first?.method).toBe('notifications/progress');
    client.abort();
    const logged = await server.line((l) => l.includes('"id":"dropped"'), 'the dropped call');
    expect(JSON.parse(logged)).toMatchObject({
      method: 'tools/call',
      name: 'sleep',
      outcome: 'cancelled',
      reason: 'disconnect',
    });
    expect(JSON.parse(logged).ms).toBeLessThan(30_000);
  });
});
