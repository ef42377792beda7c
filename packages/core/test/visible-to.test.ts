/**
 * Lists scoped to the caller (issue 28, item 3): a registration's `visibleTo` (scopes, or a
 * predicate of the caller's AuthInfo) leaves it out of the lists of callers it does not admit,
 * and to them it does not exist — a call, get, read or completion of it is answered exactly as
 * one of a name nobody registered. List changes of such a registration reach only the callers
 * who see it, and list results that differ per caller are never marked for a shared cache.
 */
import {
  legacyGetRequest,
  legacyRequest,
  modernRequest,
  openSession,
  readAnswer,
  SseReader,
} from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import {
  type AuthInfo,
  createMcpHandler,
  type McpHandlerOptions,
  McpServer,
} from '../src/index.ts';

const TOKENS: Record<string, AuthInfo> = {
  alice: { principal: 'alice', scopes: ['mcp:tools', 'admin'] },
  bob: { principal: 'bob', scopes: ['mcp:tools'] },
};
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

function server(): McpServer {
  const s = new McpServer({ name: 'scoped', version: '1' });
  s.tool('whoami', {}, (_args, ctx) => String(ctx.auth?.principal));
  s.tool('report', { visibleTo: ['admin'] }, () => 'the admin report');
  s.tool('bobs', { visibleTo: (auth) => auth?.principal === 'bob' }, () => 'for bob');
  s.tool(
    'broken',
    {
      visibleTo: () => {
        throw new Error('predicate bug');
      },
    },
    () => 'never',
  );
  s.prompt('audit', { visibleTo: ['admin'], complete: { year: () => ['2026'] } }, () => 'audit');
  s.resource('ledger', 'docs://ledger', { visibleTo: ['admin'] }, () => 'the ledger');
  s.resourceTemplate(
    'account',
    'accounts://{id}',
    { visibleTo: ['admin'] },
    (_uri, { id }) => id ?? '',
  );
  return s;
}

function handler(options: Partial<McpHandlerOptions> = {}) {
  return createMcpHandler(server(), {
    auth: {
      verify: (token) => TOKENS[token],
      resource: 'http://127.0.0.1:8787/mcp',
      authorizationServers: ['http://127.0.0.1:9000'],
    },
    ...options,
  });
}

type Handler = ReturnType<typeof handler>;

async function call(h: Handler, token: string, method: string, params: Record<string, unknown>) {
  return (await readAnswer(await h.fetch(modernRequest(method, params, bearer(token))))).message;
}

const names = async (h: Handler, token: string, method: string, field: string) =>
  (await call(h, token, method, {})).result[field].map(
    (item: { name?: string; uri?: string; uriTemplate?: string }) =>
      item.name ?? item.uri ?? item.uriTemplate,
  );

describe('lists', () => {
  test('each caller sees what it is admitted to, by scopes or by predicate; a throwing predicate hides', async () => {
    const h = handler();
    expect(await names(h, 'alice', 'tools/list', 'tools')).toEqual(['whoami', 'report']);
    expect(await names(h, 'bob', 'tools/list', 'tools')).toEqual(['whoami', 'bobs']);
    expect(await names(h, 'alice', 'prompts/list', 'prompts')).toEqual(['audit']);
    expect(await names(h, 'bob', 'prompts/list', 'prompts')).toEqual([]);
    expect(await names(h, 'alice', 'resources/list', 'resources')).toEqual(['ledger']);
    expect(await names(h, 'bob', 'resources/list', 'resources')).toEqual([]);
    expect(await names(h, 'alice', 'resources/templates/list', 'resourceTemplates')).toEqual([
      'account',
    ]);
    expect(await names(h, 'bob', 'resources/templates/list', 'resourceTemplates')).toEqual([]);
    await h.close();
  });

  test('without authorization there is no principal: scope-restricted entries are seen by nobody', async () => {
    const h = createMcpHandler(server());
    const listed = await readAnswer(await h.fetch(modernRequest('tools/list')));
    expect(listed.message.result.tools.map((t: { name: string }) => t.name)).toEqual(['whoami']);
    await h.close();
  });

  test('legacy sessions get the same lists', async () => {
    const h = handler();
    const fetchAs = (token: string) => (request: Request) => {
      request.headers.set('authorization', `Bearer ${token}`);
      return h.fetch(request);
    };
    for (const [token, expected] of [
      ['alice', ['whoami', 'report']],
      ['bob', ['whoami', 'bobs']],
    ] as const) {
      const session = await openSession({ fetch: fetchAs(token) });
      const listed = await readAnswer(
        await h.fetch(legacyRequest('tools/list', {}, session, bearer(token))),
      );
      expect(listed.message.result.tools.map((t: { name: string }) => t.name)).toEqual(expected);
    }
    await h.close();
  });

  test('lists that differ per caller are marked private even when the handler says public', async () => {
    const scoped = handler({ cache: { ttlMs: 60_000, cacheScope: 'public' } });
    expect((await call(scoped, 'bob', 'tools/list', {})).result.cacheScope).toBe('private');
    await scoped.close();
    const plain = createMcpHandler(plainServer(), {
      cache: { ttlMs: 60_000, cacheScope: 'public' },
    });
    const listed = await readAnswer(await plain.fetch(modernRequest('tools/list')));
    expect(listed.message.result.cacheScope).toBe('public');
    await plain.close();
  });
});

function plainServer(): McpServer {
  const s = new McpServer({ name: 'plain', version: '1' });
  s.tool('a', {}, () => 'a');
  return s;
}

describe('what a caller does not see does not exist for it', () => {
  test('a hidden tool is an unknown tool (not a 403), in both eras', async () => {
    const h = handler();
    const hidden = await call(h, 'bob', 'tools/call', { name: 'report' });
    const missing = await call(h, 'bob', 'tools/call', { name: 'nosuch' });
    expect(hidden.error.code).toBe(missing.error.code);
    expect(hidden.error.code).toBe(-32602);
    expect(hidden.error.message).toBe('Unknown tool: report');
    expect(missing.error.message).toBe('Unknown tool: nosuch');
    expect((await call(h, 'alice', 'tools/call', { name: 'report' })).result.content[0].text).toBe(
      'the admin report',
    );
    expect((await call(h, 'alice', 'tools/call', { name: 'bobs' })).error.message).toBe(
      'Unknown tool: bobs',
    );
    expect((await call(h, 'bob', 'tools/call', { name: 'bobs' })).result.content[0].text).toBe(
      'for bob',
    );
    expect((await call(h, 'alice', 'tools/call', { name: 'broken' })).error.message).toBe(
      'Unknown tool: broken',
    );
    const session = await openSession({
      fetch: (request) => {
        request.headers.set('authorization', 'Bearer bob');
        return h.fetch(request);
      },
    });
    const legacy = await readAnswer(
      await h.fetch(legacyRequest('tools/call', { name: 'report' }, session, bearer('bob'))),
    );
    expect(legacy.status).toBe(200);
    expect(legacy.message.error).toMatchObject({ code: -32602, message: 'Unknown tool: report' });
    await h.close();
  });

  test('hidden prompts, resources, templates and their completions are unknown too', async () => {
    const h = handler();
    expect((await call(h, 'bob', 'prompts/get', { name: 'audit' })).error.message).toBe(
      'Unknown prompt: "audit"',
    );
    expect((await call(h, 'alice', 'prompts/get', { name: 'audit' })).result.messages).toHaveLength(
      1,
    );
    const hiddenRead = await call(h, 'bob', 'resources/read', { uri: 'docs://ledger' });
    const missingRead = await call(h, 'bob', 'resources/read', { uri: 'docs://nothing' });
    expect(hiddenRead.error.code).toBe(missingRead.error.code);
    expect(hiddenRead.error.message).toBe(
      missingRead.error.message.replace('docs://nothing', 'docs://ledger'),
    );
    expect((await call(h, 'bob', 'resources/read', { uri: 'accounts://7' })).error.code).toBe(
      missingRead.error.code,
    );
    expect(
      (await call(h, 'alice', 'resources/read', { uri: 'accounts://7' })).result.contents[0].text,
    ).toBe('7');
    const complete = (token: string) =>
      call(h, token, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'audit' },
        argument: { name: 'year', value: '' },
      });
    expect((await complete('bob')).error.message).toBe('Unknown prompt: "audit"');
    expect((await complete('alice')).result.completion.values).toEqual(['2026']);
    const completeTemplate = await call(h, 'bob', 'completion/complete', {
      ref: { type: 'ref/resource', uri: 'accounts://{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(completeTemplate.error.message).toMatch(/^Unknown resource: /);
    await h.close();
  });

  test('visibleTo is checked at registration', () => {
    const s = new McpServer({ name: 'bad', version: '1' });
    expect(() => s.tool('x', { visibleTo: 'admin' as unknown as string[] }, () => 'x')).toThrow(
      /visibleTo must be a list of scopes or a function/,
    );
  });
});

describe('list changes reach the callers who see the change', () => {
  const listenAs = async (h: Handler, token: string) => {
    const reader = new SseReader(
      await h.fetch(
        modernRequest(
          'subscriptions/listen',
          { notifications: { toolsListChanged: true, promptsListChanged: true } },
          { id: `listen-${token}`, ...bearer(token) },
        ),
      ),
    );
    expect((await reader.message())?.method).toBe('notifications/subscriptions/acknowledged');
    return reader;
  };

  /**
   * Alice's and Bob's streams, made by `open`; then an admin-only tool and a prompt for all are
   * registered. Bob's next news is the prompt: the admin-only tool was no change to his list.
   */
  async function newsOnlyForWhoSees(
    open: (h: Handler, token: string) => Promise<SseReader>,
  ): Promise<void> {
    const s = server();
    const h = createMcpHandler(s, {
      auth: {
        verify: (t) => TOKENS[t],
        resource: 'http://127.0.0.1:8787/mcp',
        authorizationServers: [],
      },
    });
    const alice = await open(h, 'alice');
    const bob = await open(h, 'bob');
    s.tool('secret', { visibleTo: ['admin'] }, () => 'x');
    s.prompt('open', {}, () => 'for all');
    expect((await bob.message())?.method).toBe('notifications/prompts/list_changed');
    expect((await alice.message())?.method).toBe('notifications/tools/list_changed');
    expect((await alice.message())?.method).toBe('notifications/prompts/list_changed');
    await Promise.all([alice.cancel(), bob.cancel()]);
    await h.close();
  }

  test('on listen streams: a hidden registration is news only to who sees it', () =>
    newsOnlyForWhoSees(listenAs));

  test('on legacy GET streams, by the caller that opened the stream', () =>
    newsOnlyForWhoSees(async (h, token) => {
      const session = await openSession({
        fetch: (request) => {
          request.headers.set('authorization', `Bearer ${token}`);
          return h.fetch(request);
        },
      });
      const reader = new SseReader(
        await h.fetch(legacyGetRequest(session, undefined, bearer(token))),
      );
      await reader.next();
      return reader;
    }));
});
