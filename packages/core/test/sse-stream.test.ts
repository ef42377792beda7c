import { parseSse } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';
import { type SseOwner, SseStream } from '../src/sse/stream.ts';

const owner: SseOwner = { disconnected() {}, overflowed() {} };

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

test('a replay written while a read is already waiting sends each event once, in order', async () => {
  // On workerd a waiting read makes an enqueue call pull() at once, inside the replay's own loop,
  // which wrote an event twice (caught by the Durable Object restart test; Node's streams defer
  // that pull, so here this pins the order and count, not the re-entrancy itself).
  const stream = new SseStream(owner, 0, 1024);
  const reader = stream.readable.getReader();
  const first = reader.read();
  stream.replay([
    { id: '0-2', message: '{"n":2}' },
    { id: '0-3', message: '{"n":3}' },
    { id: '0-4', message: '{"n":4}' },
  ]);
  stream.send('{"n":5}', '0-5');
  stream.close();
  reader.releaseLock();
  const head = new TextDecoder().decode((await first).value);
  const rest = await readAll(stream.readable);
  expect(parseSse(head + rest).map((event) => event.id)).toEqual(['0-2', '0-3', '0-4', '0-5']);
});

test('a replay larger than the bound is written as the reader reads, never taken for a stall', async () => {
  let overflowed = 0;
  const stream = new SseStream({ disconnected() {}, overflowed: () => overflowed++ }, 0, 256);
  const events = Array.from({ length: 50 }, (_, i) => ({
    id: `0-${i + 1}`,
    message: `{"n":${i}}`,
  }));
  stream.replay(events);
  stream.close();
  const text = await readAll(stream.readable);
  expect(parseSse(text).map((event) => event.id)).toEqual(events.map((event) => event.id));
  expect(overflowed).toBe(0);
});
