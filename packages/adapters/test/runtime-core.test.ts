/**
 * The core's handler served directly by the Bun and Deno adapters (test/fixtures/core-server.ts in
 * the real binaries): what goes through the core's fast entry there (Bun: the request read
 * through, its body read natively) answers as through `fetch`: a JSON answer with its length,
 * the body limit refused whether declared or streamed, an event stream, a disconnect aborting the
 * tool.
 */
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { modern, readAnswer, sseMessages } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { within } from './helpers.ts';
import { bunBinary, denoBinary, startFixture } from './runtime-child.ts';

const script = fileURLToPath(new URL('./fixtures/core-server.ts', import.meta.url));

const RUNTIMES = [
  { name: 'Bun', command: bunBinary, args: ['run'] },
  {
    name: 'Deno',
    command: denoBinary,
    args: ['run', '--allow-net', '--allow-env', '--allow-read', '--unstable-no-legacy-abort'],
  },
];

function call(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) {
  return modern('tools/call', { name, arguments: args }, { id: 1, ...(meta ? { meta } : {}) });
}

describe.each(RUNTIMES)('the core handler on $name', ({ command, args }) => {
  const start = () => startFixture(command(), args, 'graceful', {}, script);

  test('a tools/call answers JSON with a Content-Length', async () => {
    const base = await start().url();
    const response = await within(fetch(`${base}/mcp`, call('echo', { text: 'héllo' })), 'echo');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('content-length')).not.toBeNull();
    const { message } = await readAnswer(response);
    expect(message.result.content[0].text).toBe('héllo');
  });

  test('a body over the limit is refused, declared or streamed; a streamed one under it answers', async () => {
    const base = await start().url();
    const big = call('echo', { text: 'x'.repeat(2000) });
    expect((await within(fetch(`${base}/mcp`, big), 'declared')).status).toBe(413);
    const streamed = (init: RequestInit) =>
      fetch(`${base}/mcp`, {
        ...init,
        body: new Blob([init.body as string]).stream(),
        duplex: 'half',
      } as RequestInit);
    expect((await within(streamed(big), 'streamed, too large')).status).toBe(413);
    const small = await within(streamed(call('echo', { text: 'small' })), 'streamed, small');
    expect(small.status).toBe(200);
    expect((await readAnswer(small)).message.result.content[0].text).toBe('small');
  });

  test('a call with progress answers an event stream with the progress, then the result', async () => {
    const base = await start().url();
    const response = await within(
      fetch(`${base}/mcp`, call('progress', {}, { progressToken: 'p' })),
      'the stream',
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = sseMessages(await response.text()) as { method?: string; result?: unknown }[];
    expect(messages[0]?.method).toBe('notifications/progress');
    expect(JSON.stringify(messages.at(-1)?.result)).toContain('progressed');
  });

  test('a client that leaves aborts the tool', async () => {
    const child = start();
    const base = await child.url();
    const { hostname, port } = new URL(base);
    const init = call('wait');
    const body = init.body as string;
    const headers = Object.entries(init.headers as Record<string, string>)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const client = connect(Number(port), hostname);
    client.on('error', () => {});
    client.write(
      `POST /mcp HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`,
    );
    await within(child.line('start 1'), 'the tool to start');
    client.destroy();
    await within(child.line('abort 1'), 'the tool to abort');
  });
});
