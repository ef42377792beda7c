import { modernRequest, sseMessages } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { call } from './helpers.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'streams', version: '1.0.0' });
  s.tool('work', {}, async (_args, ctx) => {
    ctx.log('debug', 'debug detail');
    ctx.log('info', { step: 'start' }, 'worker');
    ctx.progress(1, 3, 'one');
    ctx.progress(1, 3, 'not increasing: dropped');
    ctx.progress(2, 3);
    ctx.log('error', 'something bad');
    return 'done';
  });
  s.tool('quiet', {}, () => 'plain');
  s.tool('wait', {}, async (_args, ctx) => {
    ctx.progress(1);
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never sent';
  });
  return s;
}

describe('JSON or SSE answers', () => {
  const handler = createMcpHandler(server());

  test('a plain result is JSON', async () => {
    const answer = await call(
      handler,
      'tools/call',
      { name: 'quiet' },
      { meta: { progressToken: 1 } },
    );
    expect(answer.contentType).toBe('application/json');
    expect(answer.message.result.content[0].text).toBe('plain');
  });

  test('progress and logs stream as SSE before the result, honouring the log level', async () => {
    const answer = await call(
      handler,
      'tools/call',
      { name: 'work' },
      { meta: { progressToken: 'tok', 'io.modelcontextprotocol/logLevel': 'info' } },
    );
    expect(answer.contentType).toBe('text/event-stream');
    expect(answer.notifications).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'info', logger: 'worker', data: { step: 'start' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 1, total: 3, message: 'one' },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok', progress: 2, total: 3 },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'error', data: 'something bad' },
      },
    ]);
    expect(answer.message.result.content[0].text).toBe('done');
  });

  test('without a log level or progress token nothing is sent but the result', async () => {
    const answer = await call(handler, 'tools/call', { name: 'work' });
    expect(answer.contentType).toBe('application/json');
    expect(answer.notifications).toEqual([]);
  });

  test('SSE answers carry the anti-buffering headers and comment keep-alives', async () => {
    const h = createMcpHandler(server(), { keepAliveMs: 20 });
    const response = await h.fetch(
      modernRequest('tools/call', { name: 'wait' }, { meta: { progressToken: 'k' } }),
    );
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': keep-alive')) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`stream ended before a keep-alive: ${text}`);
      text += decoder.decode(value);
    }
    expect(sseMessages(text)[0]).toMatchObject({ method: 'notifications/progress' });
    await h.close();
    // After shutdown the stream ends without a result for the cut request.
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(sseMessages(rest).some((m) => 'result' in m)).toBe(false);
  });
});

describe('streamAfterMs', () => {
  test('a request still running after streamAfterMs answers SSE at once with a comment; a quick one stays JSON', async () => {
    const h = createMcpHandler(server(), { streamAfterMs: 0, keepAliveMs: 0 });
    const quick = await call(h, 'tools/call', { name: 'quiet' });
    expect(quick.contentType).toBe('application/json');
    const slow = await h.fetch(modernRequest('tools/call', { name: 'wait' }));
    expect(slow.headers.get('content-type')).toBe('text/event-stream');
    const reader = slow.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': keep-alive\n\n');
    await reader.cancel();
    await expect.poll(() => h.inFlight).toBe(0);
  });
});
