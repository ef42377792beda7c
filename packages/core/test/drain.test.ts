/**
 * `close({ graceMs })` (issue 24, item 2): new work is refused with 503 and Retry-After at once,
 * streams that only wait for news end so their clients reconnect elsewhere, calls in flight may
 * finish within the grace, and what is still running when it is over is aborted (`shutdown`).
 */
import {
  aborted,
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  notificationRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import { createMcpHandler, McpServer } from '../src/index.ts';

/** `hold` runs until released (or aborted); its signals are kept for the test to watch. */
function setup() {
  const server = new McpServer({ name: 'drain', version: '1' });
  const releases: Array<() => void> = [];
  const signals: AbortSignal[] = [];
  server.tool('hold', {}, (_args, ctx) => {
    signals.push(ctx.signal);
    return new Promise<string>((resolve, reject) => {
      releases.push(() => resolve('finished'));
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    });
  });
  server.tool('echo', {}, () => 'echo');
  const handler = createMcpHandler(server);
  return { handler, releases, signals };
}

const hold = () => modernRequest('tools/call', { name: 'hold', arguments: {} });

describe('close({ graceMs })', () => {
  test('a call in flight finishes within the grace while new requests get 503 with Retry-After', async () => {
    const { handler, releases } = setup();
    const running = handler.fetch(hold());
    await expect.poll(() => releases.length).toBe(1);
    const closing = handler.close({ graceMs: 30_000 });
    expect(handler.closed).toBe(true);
    const refused = await handler.fetch(
      modernRequest('tools/call', { name: 'echo', arguments: {} }),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await readAnswer(refused)).message.error.code).toBe(-32603);
    releases[0]?.();
    const answer = await readAnswer(await running);
    expect(answer.message.result.content[0].text).toBe('finished');
    // Everything settled: close() is done long before the grace.
    await closing;
    expect(handler.signal.aborted).toBe(true);
  });

  test('what is still running when the grace is over is aborted with reason shutdown', async () => {
    const { handler, signals } = setup();
    const running = handler.fetch(hold());
    await expect.poll(() => signals.length).toBe(1);
    const closing = handler.close({ graceMs: 50 });
    const reason = (await aborted(signals[0] as AbortSignal)) as { type?: string };
    expect(reason.type).toBe('shutdown');
    expect((await running).status).toBe(503);
    await closing;
  });

  test('a listen stream gets its completing result at once; a session GET stream ends at once, its session answers until the grace is over', async () => {
    const { handler, releases } = setup();
    const listen = new SseReader(
      await handler.fetch(
        modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
      ),
    );
    expect((await listen.message())?.method).toBe('notifications/subscriptions/acknowledged');
    const session = await openSession(handler);
    const get = new SseReader(await handler.fetch(legacyGetRequest(session)));
    // A call in flight keeps the drain open while both streams end.
    const running = handler.fetch(
      legacyRequest('tools/call', { name: 'hold', arguments: {} }, session),
    );
    await expect.poll(() => releases.length).toBe(1);
    const closing = handler.close({ graceMs: 30_000 });
    const farewell = await listen.message();
    expect(farewell?.result).toMatchObject({ resultType: 'complete' });
    expect(await listen.message()).toBeUndefined();
    expect(await get.message()).toBeUndefined();
    // A new GET for the stream goes elsewhere; a cancel for the call still running gets in.
    expect((await handler.fetch(legacyGetRequest(session))).status).toBe(503);
    const cancel = await handler.fetch(
      notificationRequest('notifications/cancelled', { requestId: 2 }, session),
    );
    expect(cancel.status).toBe(202);
    releases[0]?.();
    await (await running).text();
    await closing;
  });

  test('without a grace, close() aborts at once as before', async () => {
    const { handler, signals } = setup();
    const running = handler.fetch(hold());
    await expect.poll(() => signals.length).toBe(1);
    await handler.close();
    expect(signals[0]?.aborted).toBe(true);
    expect((await running).status).toBe(503);
  });
});
