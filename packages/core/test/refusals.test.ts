/**
 * Every request refused before its method ran leaves one `outcome: 'refused'` request event with
 * its HTTP status, reason and JSON-RPC code (issue 21): the answers behind a misconfigured proxy
 * (403 Host), a bad token (401) or a stale session (404) are no longer invisible.
 */
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  postRequest,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import {
  createMcpHandler,
  InvalidTokenError,
  type McpHandlerOptions,
  McpServer,
  type RequestEvent,
} from '../src/index.ts';

const URL_ = 'http://127.0.0.1:8787/mcp';

function handlerWithLog(options: McpHandlerOptions = {}) {
  const server = new McpServer({ name: 'refusals', version: '1' });
  server.tool('echo', {}, () => 'echo');
  const events: RequestEvent[] = [];
  const handler = createMcpHandler(server, {
    onRequest: (event) => events.push(event),
    ...options,
  });
  return { handler, events };
}

/** The one event a refused request left, checked against its answer. */
async function refusalOf(
  events: RequestEvent[],
  answer: Response,
): Promise<Pick<RequestEvent, 'status' | 'reason' | 'errorCode' | 'method'>> {
  const body = await answer.text();
  expect(events, body).toHaveLength(1);
  const event = events.pop() as RequestEvent;
  expect(event.outcome).toBe('refused');
  expect(event.status).toBe(answer.status);
  if (body !== '') expect(event.errorCode).toBe(JSON.parse(body).error.code);
  return {
    status: event.status,
    reason: event.reason,
    errorCode: event.errorCode,
    method: event.method,
  };
}

describe('a refusal before anything was read', () => {
  const cases: Array<[string, number, string, () => Request]> = [
    [
      'a path other than the endpoint',
      404,
      'path',
      () => new Request('http://127.0.0.1:8787/elsewhere', { method: 'POST' }),
    ],
    [
      'a Host that is not allowed',
      403,
      'host-not-allowed',
      () => modernRequest('tools/call', { name: 'echo' }, { url: 'http://evil.example/mcp' }),
    ],
    [
      'an Origin that is not allowed',
      403,
      'origin-not-allowed',
      () =>
        modernRequest(
          'tools/call',
          { name: 'echo' },
          { headers: { origin: 'https://evil.example' } },
        ),
    ],
    ['PUT', 405, 'method-not-allowed', () => new Request(URL_, { method: 'PUT' })],
    [
      'a Content-Type that is not JSON',
      415,
      'content-type',
      () => modernRequest('tools/call', {}, { headers: { 'content-type': 'text/plain' } }),
    ],
    [
      'an Accept without SSE',
      406,
      'accept',
      () => modernRequest('tools/call', {}, { headers: { accept: 'application/json' } }),
    ],
    [
      'a body over maxBodyBytes',
      413,
      'body-too-large',
      () => modernRequest('tools/call', {}, { body: JSON.stringify({ pad: 'x'.repeat(2048) }) }),
    ],
    [
      'a body that is not JSON',
      400,
      'parse-error',
      () => modernRequest('tools/call', {}, { body: '{' }),
    ],
    [
      'JSON that is not JSON-RPC',
      400,
      'invalid-message',
      () => modernRequest('tools/call', {}, { body: '{"hello":1}' }),
    ],
  ];
  test.each(cases)('%s: %i %s', async (_what, status, reason, make) => {
    const { handler, events } = handlerWithLog({ maxBodyBytes: 1024 });
    const answer = await handler.fetch(make());
    expect(await refusalOf(events, answer)).toMatchObject({ status, reason });
  });

  test('a request after close(): 503 shutting-down; the method is the HTTP one', async () => {
    const { handler, events } = handlerWithLog();
    await handler.close();
    const answer = await handler.fetch(modernRequest('tools/call', { name: 'echo' }));
    expect(await refusalOf(events, answer)).toEqual({
      status: 503,
      reason: 'shutting-down',
      errorCode: -32603,
      method: 'POST',
    });
  });
});

describe('a refusal of the message', () => {
  test('2026-07-28: a method the server does not offer, headers that disagree with the body', async () => {
    const { handler, events } = handlerWithLog();
    const unknown = await handler.fetch(modernRequest('nothing/here'));
    expect(await refusalOf(events, unknown)).toMatchObject({
      status: 404,
      reason: 'method-not-found',
      method: 'nothing/here',
    });
    const mismatch = await handler.fetch(
      modernRequest('tools/call', { name: 'echo' }, { headers: { 'mcp-name': 'other' } }),
    );
    expect(await refusalOf(events, mismatch)).toMatchObject({
      status: 400,
      reason: 'invalid-headers',
    });
  });

  test('a legacy request to a handler that serves 2026-07-28 only: unsupported-version', async () => {
    const { handler, events } = handlerWithLog({ legacy: false });
    const answer = await handler.fetch(legacyRequest('tools/list'));
    expect(await refusalOf(events, answer)).toMatchObject({
      status: 400,
      reason: 'unsupported-version',
      method: 'tools/list',
    });
  });

  test('legacy sessions: no id, an unknown id, a malformed Last-Event-ID, too many streams', async () => {
    const { handler, events } = handlerWithLog({ limits: { maxStreamsPerSession: 1 } });
    const missing = await handler.fetch(legacyRequest('tools/list'));
    expect(await refusalOf(events, missing)).toMatchObject({
      status: 400,
      reason: 'session-required',
    });
    const unknown = await handler.fetch(legacyRequest('tools/list', {}, 'no-such-session'));
    expect(events[0]?.sessionId).toBe('no-such-session');
    expect(await refusalOf(events, unknown)).toMatchObject({
      status: 404,
      reason: 'session-unknown',
    });
    const session = await openSession(handler);
    events.length = 0;
    const badId = await handler.fetch(legacyGetRequest(session, 'not-an-event'));
    expect(await refusalOf(events, badId)).toMatchObject({ status: 400, reason: 'last-event-id' });
    const first = await handler.fetch(legacyGetRequest(session));
    expect(first.status).toBe(200);
    // A resumption of another stream would be a second connection.
    const second = await handler.fetch(legacyGetRequest(session, '7-1'));
    expect(await refusalOf(events, second)).toMatchObject({
      status: 429,
      reason: 'session-streams',
    });
    await first.body?.cancel();
    const batch = await handler.fetch(postRequest([], session));
    expect(await refusalOf(events, batch)).toMatchObject({ status: 400, reason: 'batch' });
    await handler.close();
  });
});

describe('authentication', () => {
  const TOKENS: Record<string, { principal: string; scopes: string[] }> = {
    alice: { principal: 'alice', scopes: [] },
    bob: { principal: 'bob', scopes: [] },
  };
  const auth: McpHandlerOptions['auth'] = {
    verify: (token) => {
      if (token === 'expired') throw new InvalidTokenError('expired');
      if (token === 'elsewhere') throw new InvalidTokenError('audience');
      if (token === 'forged') throw new InvalidTokenError('signature');
      return TOKENS[token];
    },
    resource: URL_,
    authorizationServers: ['http://127.0.0.1:9'],
  };

  test.each([
    [undefined, 'token-missing'],
    ['Basic YWxpY2U6cHc=', 'token-scheme'],
    ['Bearer garbage', 'token-invalid'],
    ['Bearer expired', 'token-expired'],
    ['Bearer elsewhere', 'token-audience'],
    ['Bearer forged', 'token-signature'],
  ])('Authorization %s: 401 %s', async (authorization, reason) => {
    const { handler, events } = handlerWithLog({ auth });
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const answer = await handler.fetch(modernRequest('tools/call', { name: 'echo' }, { headers }));
    expect(await refusalOf(events, answer)).toMatchObject({ status: 401, reason });
  });

  test("another principal's session: the client sees session-unknown's 404, the log session-principal", async () => {
    const { handler, events } = handlerWithLog({ auth });
    const asAlice = {
      fetch: (request: Request) => {
        const headers = new Headers(request.headers);
        headers.set('authorization', 'Bearer alice');
        return handler.fetch(new Request(request, { headers }));
      },
    };
    const session = await openSession(asAlice);
    events.length = 0;
    const bob = { authorization: 'Bearer bob' };
    const hijack = await handler.fetch(legacyRequest('tools/list', {}, session, { headers: bob }));
    const unknown = await handler.fetch(
      legacyRequest('tools/list', {}, 'made-up', { headers: bob }),
    );
    const [hijackBody, unknownBody] = [await hijack.text(), await unknown.text()];
    expect([hijack.status, JSON.parse(hijackBody).error]).toEqual([
      unknown.status,
      JSON.parse(unknownBody).error,
    ]);
    expect(events.map((event) => [event.outcome, event.status, event.reason])).toEqual([
      ['refused', 404, 'session-principal'],
      ['refused', 404, 'session-unknown'],
    ]);
    await handler.close();
  });
});

test('requests that ran are not reported as refused, and a refusal is reported once', async () => {
  const { handler, events } = handlerWithLog();
  const ok = await handler.fetch(modernRequest('tools/call', { name: 'echo' }));
  expect(ok.status).toBe(200);
  await ok.text();
  expect(events.map((event) => event.outcome)).toEqual(['ok']);
  expect(events[0]?.status).toBeUndefined();
});
