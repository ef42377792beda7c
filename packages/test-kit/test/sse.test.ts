import { describe, expect, test } from 'vitest';
import { parseSse, SseParser, SseReader, sseMessages } from '../src/index.ts';

/** A body that delivers `chunks` one read at a time. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

const STREAM =
  ': keep-alive\n\n' +
  'id: 0-0\nretry: 1000\ndata: \n\n' +
  'id: 0-1\nevent: message\ndata: {"jsonrpc":"2.0",\ndata:"method":"a"}\n\n' +
  'retry: 500\n\n' +
  'data: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';

describe('SseParser', () => {
  test('fields, multi-line data, priming events; comments and bare retries yield nothing', () => {
    expect(parseSse(STREAM)).toEqual([
      { id: '0-0', retry: 1000, data: '' },
      { id: '0-1', event: 'message', data: '{"jsonrpc":"2.0",\n"method":"a"}' },
      { data: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    ]);
    expect(sseMessages(STREAM)).toEqual([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
  });

  test('the same events whatever the chunking, with LF, CRLF or CR line ends', () => {
    for (const end of ['\n', '\r\n', '\r']) {
      const text = STREAM.replaceAll('\n', end);
      for (let size = 1; size <= text.length; size++) {
        const parser = new SseParser();
        const events = [];
        for (let at = 0; at < text.length; at += size)
          events.push(...parser.push(text.slice(at, at + size)));
        events.push(...parser.end());
        expect(events, `${JSON.stringify(end)} in chunks of ${size}`).toEqual(parseSse(STREAM));
      }
    }
  });

  test('an event the stream ends inside is dropped; no space after the colon is fine', () => {
    expect(parseSse('data:{"a":1}\n\ndata: {"b":')).toEqual([{ data: '{"a":1}' }]);
    expect(parseSse('id:7\n\n')).toEqual([{ id: '7', data: '' }]);
  });
});

describe('SseReader', () => {
  test('reads events as they arrive; messages carry their event id; the end is undefined', async () => {
    const reader = new SseReader(body(...STREAM.match(/[\s\S]{1,7}/g)!));
    expect(await reader.next()).toEqual({ id: '0-0', retry: 1000, data: '' });
    expect(await reader.message()).toEqual({ jsonrpc: '2.0', method: 'a', _eventId: '0-1' });
    expect(await reader.message()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(reader.done).toBe(false);
    expect(await reader.next()).toBeUndefined();
    expect(reader.done).toBe(true);
    expect(await reader.message()).toBeUndefined();
  });

  test('waiting for more than the stream holds throws instead of waiting for ever', async () => {
    await expect(new SseReader(body(STREAM)).messages(3)).rejects.toThrow(
      'the stream ended after 2 of 3 messages',
    );
    await expect(
      new SseReader(body(STREAM)).until((m) => m.method === 'b', 'method b'),
    ).rejects.toThrow('the stream ended before method b');
    const found = await new SseReader(body(STREAM)).until((m) => m.id === 1);
    expect(found.result).toEqual({});
  });

  test('rest() and for await read to the end; a Response body works too', async () => {
    expect(await new SseReader(new Response(body(STREAM))).rest()).toHaveLength(2);
    const seen = [];
    for await (const message of new SseReader(body(STREAM)))
      seen.push(message.method ?? message.id);
    expect(seen).toEqual(['a', 1]);
  });
});
