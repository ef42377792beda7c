/**
 * Streams are bounded in bytes: a client that stops reading cannot make the server queue for ever
 * (issue 12, item 4). Each test leaves a stream unread while the server writes, in-process, where
 * nothing but the test reads the body.
 */
import {
  legacyGetRequest,
  modernRequest,
  openSession,
  SseReader,
  sseMessages,
} from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { createMcpHandler, McpServer, type RequestEvent } from '../src/index.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'backpressure', version: '1' });
  s.tool('echo', {}, () => 'x');
  return s;
}

test('a listen stream whose client stops reading ends with an error result; its handler is aborted', async () => {
  const s = server();
  const events: RequestEvent[] = [];
  const handler = createMcpHandler(s, {
    limits: { maxQueuedBytes: 16 * 1024 },
    onRequest: (event) => events.push(event),
  });
  const response = await handler.fetch(
    modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }),
  );
  expect(handler.inFlight).toBe(1);
  // Nobody reads: about 100 bytes each, 1,000 of them, against a bound of 16 KiB.
  for (let i = 0; i < 1000; i++) s.notifyListChanged('tools');
  await expect.poll(() => handler.inFlight).toBe(0);
  expect(handler.stats()).toMatchObject({ overflowed: 1, openStreams: 0 });
  expect(events[0]).toMatchObject({ method: 'subscriptions/listen', outcome: 'error' });
  // What was queued is still delivered, then the error that ends it.
  const messages = sseMessages(await response.text());
  expect(messages[0]?.method).toBe('notifications/subscriptions/acknowledged');
  const changes = messages.filter((m) => m.method === 'notifications/tools/list_changed').length;
  expect(changes).toBeGreaterThan(10);
  expect(changes).toBeLessThan(1000);
  expect(messages.at(-1)?.error).toEqual({
    code: -32603,
    message: 'The client did not read its stream fast enough',
  });
});

test('progress is coalesced for a client that reads late: the newest survives, the result follows', async () => {
  const s = server();
  s.tool('busy', {}, (_args, ctx) => {
    for (let i = 1; i <= 5000; i++) ctx.progress(i, 5000, `step ${i} of a long job`);
    return 'done';
  });
  const handler = createMcpHandler(s);
  const response = await handler.fetch(
    modernRequest('tools/call', { name: 'busy' }, { meta: { progressToken: 'job' } }),
  );
  await expect.poll(() => handler.inFlight).toBe(0);
  const messages = sseMessages(await response.text());
  const progress = messages.filter((m) => m.method === 'notifications/progress');
  expect(progress.length).toBeGreaterThan(10);
  expect(progress.length).toBeLessThan(5000);
  expect(progress.at(-1)?.params.progress).toBe(5000);
  expect(messages.at(-1)?.result.content[0].text).toBe('done');
  expect(handler.stats().dropped).toBe(5000 - progress.length);
});

test('a legacy GET stream whose client stops reading is cut; Last-Event-ID replays everything', async () => {
  const s = server();
  const handler = createMcpHandler(s, { limits: { maxQueuedBytes: 16 * 1024 } });
  const session = await openSession(handler);
  const stalled = await handler.fetch(legacyGetRequest(session));
  expect(handler.stats().openStreams).toBe(1);
  for (let i = 0; i < 400; i++) s.notifyListChanged('tools');
  // Cut: the connection is gone, its queue dropped (the body errors for whoever reads it late).
  expect(handler.stats()).toMatchObject({ overflowed: 1, openStreams: 0 });
  await expect(stalled.text()).rejects.toThrow(/did not read its stream fast enough/);
  // The events are in the store: a resumption from the start gets all 400, in order.
  const resumed = new SseReader(await handler.fetch(legacyGetRequest(session, '0-0')));
  const replayed = await resumed.messages(400);
  expect(replayed.every((m) => m.method === 'notifications/tools/list_changed')).toBe(true);
  expect(replayed.map((m) => m._eventId)).toEqual(
    Array.from({ length: 400 }, (_, i) => `0-${i + 1}`),
  );
  // And it goes on live.
  s.notifyListChanged('tools');
  expect((await resumed.message())?._eventId).toBe('0-401');
  await resumed.cancel();
  await expect.poll(() => handler.stats().openStreams).toBe(0);
});
