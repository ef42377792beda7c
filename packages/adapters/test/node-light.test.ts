import { request as httpRequest } from 'node:http';
import { BodyTooLargeError, HANDLE, type IncomingRequest } from '@edge-mcp/core/adapter';
import { describe, expect, test } from 'vitest';
import type { PlainReply } from '../src/shared/types.ts';
import { deferred, start, within } from './helpers.ts';

/** A handler with the fast entry: the adapter must use it, never fetch(). */
function light(handle: (request: IncomingRequest) => Promise<Response | PlainReply>) {
  return {
    fetch: () => {
      throw new Error('fetch() must not be used when the fast entry exists');
    },
    [HANDLE]: handle,
  };
}

describe('the fast path (handlers with the HANDLE entry)', () => {
  test('a plain reply is written as it is, with its status, headers and a Content-Length', async () => {
    const seen: Record<string, unknown> = {};
    const server = await start(
      light(async (request) => {
        seen.method = request.method;
        seen.url = request.url;
        seen.header = request.headers.get('X-Custom');
        seen.missing = request.headers.get('x-missing');
        seen.body = await request.readText?.(1024);
        return {
          status: 201,
          headers: { 'content-type': 'application/json', 'x-reply': 'yes' },
          body: '{"ok":true}',
        };
      }),
    );
    const response = await fetch(`${server.url}/mcp?q=1`, {
      method: 'POST',
      headers: { 'x-custom': 'abc' },
      body: 'hello',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('x-reply')).toBe('yes');
    expect(response.headers.get('content-length')).toBe('11');
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toEqual({
      method: 'POST',
      url: `${server.url}/mcp?q=1`,
      header: 'abc',
      missing: null,
      body: 'hello',
    });
  });

  test('readText refuses a chunked body over the limit while reading', async () => {
    const refused = deferred<unknown>();
    const server = await start(
      light(async (request) => {
        try {
          await request.readText?.(1000);
          return { status: 200, headers: {}, body: 'read it all' };
        } catch (error) {
          refused.resolve(error);
          return { status: 413, headers: {}, body: null };
        }
      }),
    );
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      // No Content-Length: chunked, so the limit must be enforced on the bytes as they come.
      for (let i = 0; i < 10; i++) req.write('x'.repeat(500));
      req.end();
    });
    expect(status).toBe(413);
    expect(await within(refused.promise, 'the refusal')).toBeInstanceOf(BodyTooLargeError);
  });

  test('a client that leaves aborts the light request signal; a completed one does not', async () => {
    const aborted = deferred<unknown>();
    const started = deferred();
    const signals: AbortSignal[] = [];
    const server = await start(
      light(async (request) => {
        signals.push(request.signal);
        if (request.url.endsWith('/quick')) return { status: 200, headers: {}, body: 'quick' };
        request.signal.addEventListener('abort', () => aborted.resolve(request.signal.reason));
        started.resolve();
        return new Promise<PlainReply>(() => {});
      }),
    );
    expect(await (await fetch(`${server.url}/quick`)).text()).toBe('quick');
    const client = new AbortController();
    const pending = fetch(`${server.url}/slow`, { signal: client.signal }).catch(() => undefined);
    await within(started.promise, 'the handler start');
    client.abort();
    const reason = (await within(aborted.promise, 'the abort')) as Error;
    expect(reason.name).toBe('AbortError');
    await pending;
    expect(signals[0]?.aborted).toBe(false);
  });
});
