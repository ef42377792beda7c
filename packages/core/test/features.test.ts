import { modernRequest, SseReader } from '@edge-mcp/test-kit';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import * as z from 'zod';
import {
  createMcpHandler,
  McpServer,
  type RequestEvent,
  ResourceNotFoundError,
  type Schema,
} from '../src/index.ts';
import { call } from './helpers.ts';

function server(): McpServer {
  const s = new McpServer({ name: 'features', version: '2.0.0', instructions: 'Be nice.' });
  s.tool(
    'add',
    {
      description: 'Adds',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    ({ a, b }) => ({
      structuredContent: { sum: a + b },
    }),
  );
  s.tool('liar', { outputSchema: z.object({ sum: z.number() }) }, () => ({
    structuredContent: { sum: 'no' },
  }));
  s.tool(
    'shout',
    {
      inputSchema: toStandardJsonSchema(
        v.object({ text: v.pipe(v.string(), v.minLength(1), v.description('What to shout')) }),
      ),
    },
    ({ text }) => text.toUpperCase(),
  );
  s.resource('readme', 'docs://readme', { mimeType: 'text/markdown' }, () => '# Hi');
  s.resource(
    'logo',
    'docs://logo',
    { mimeType: 'image/png' },
    () => new Uint8Array([137, 80, 78, 71]),
  );
  s.resourceTemplate(
    'user',
    'users://{id}/profile',
    {
      mimeType: 'application/json',
      complete: { id: (value) => ['alice', 'bob', 'carol'].filter((n) => n.startsWith(value)) },
    },
    (_uri, { id }) => JSON.stringify({ id }),
  );
  s.prompt(
    'review',
    {
      description: 'Review code',
      argsSchema: z.object({
        language: z.string().describe('Language'),
        style: z.string().optional(),
      }),
      complete: { language: (value) => ['go', 'rust', 'ruby'].filter((l) => l.startsWith(value)) },
    },
    ({ language }) => `Review this ${language} code`,
  );
  return s;
}

describe('server features over 2026-07-28', () => {
  const handler = createMcpHandler(server(), { cache: { ttlMs: 60_000, cacheScope: 'public' } });

  test('server/discover lists versions, capabilities, instructions, cache hints and serverInfo', async () => {
    const { message } = await call(handler, 'server/discover');
    expect(message.result).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
      capabilities: {
        logging: {},
        tools: { listChanged: true },
        resources: { listChanged: true, subscribe: true },
        prompts: { listChanged: true },
        completions: {},
      },
      instructions: 'Be nice.',
      ttlMs: 60_000,
      cacheScope: 'public',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'features', version: '2.0.0' } },
    });
  });

  test('zod and valibot schemas are advertised as JSON Schema 2020-12 by their own exporters', async () => {
    const { message } = await call(handler, 'tools/list');
    const [add, , shout] = message.result.tools;
    expect(add.inputSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(add.outputSchema).toMatchObject({
      type: 'object',
      properties: { sum: { type: 'number' } },
    });
    expect(shout.inputSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string', minLength: 1, description: 'What to shout' } },
      required: ['text'],
    });
    expect(message.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });

  test('valibot validates arguments too', async () => {
    expect(
      (await call(handler, 'tools/call', { name: 'shout', arguments: { text: 'hey' } })).message
        .result.content[0].text,
    ).toBe('HEY');
    expect(
      (await call(handler, 'tools/call', { name: 'shout', arguments: { text: '' } })).message.error
        .code,
    ).toBe(-32602);
  });

  test('a raw valibot schema is refused at definition time with a helpful message', () => {
    const s = new McpServer({ name: 'x', version: '1' });
    expect(() => s.tool('t', { inputSchema: v.object({}) as never }, () => '')).toThrow(
      /toStandardJsonSchema/,
    );
  });

  test('structured results are mirrored as text and checked against the output schema', async () => {
    const ok = await call(handler, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    expect(ok.message.result).toMatchObject({
      structuredContent: { sum: 5 },
      content: [{ type: 'text', text: '{"sum":5}' }],
    });
    const bad = await call(handler, 'tools/call', { name: 'liar' });
    expect(bad.message.error.code).toBe(-32603);
  });

  test('asynchronous validators and thenable handlers are awaited, their failures mapped', async () => {
    // A Standard Schema whose validation is asynchronous (a remote check, say).
    const positive = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: async (value: unknown) => {
          const n = (value as { n?: unknown }).n;
          return typeof n === 'number' && n > 0
            ? { value: { n } }
            : { issues: [{ message: 'n must be positive', path: ['n'] }] };
        },
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    } as unknown as Schema<{ n: number }>;
    const s = new McpServer({ name: 'async', version: '1' });
    s.tool(
      'double',
      { inputSchema: positive },
      ({ n }) =>
        ({
          // A thenable that is not a native Promise.
          // biome-ignore lint/suspicious/noThenProperty: the point of the test
          then: (resolve: (value: string) => void) => resolve(String(n * 2)),
        }) as unknown as string,
    );
    s.tool('fails', { inputSchema: positive }, async () => {
      throw new Error('later');
    });
    const h = createMcpHandler(s);
    const ok = await call(h, 'tools/call', { name: 'double', arguments: { n: 21 } });
    expect(ok.message.result.content).toEqual([{ type: 'text', text: '42' }]);
    const invalid = await call(h, 'tools/call', { name: 'double', arguments: { n: -1 } });
    expect(invalid.message.error).toMatchObject({ code: -32602 });
    expect(invalid.message.error.message).toMatch(
      /Invalid arguments for tool double: n: n must be positive/,
    );
    const failed = await call(h, 'tools/call', { name: 'fails', arguments: { n: 1 } });
    expect(failed.message.result).toMatchObject({ isError: true, content: [{ text: 'later' }] });
  });

  test('icons (2025-11-25) are advertised with tools, prompts and resources', async () => {
    const icons = [{ src: 'https://example.test/i.png', mimeType: 'image/png', sizes: ['48x48'] }];
    const s = new McpServer({ name: 'icons', version: '1' });
    s.tool('t', { icons }, () => 't');
    s.prompt('p', { icons }, () => 'p');
    s.resource('r', 'docs://r', { icons }, () => 'r');
    const h = createMcpHandler(s);
    expect((await call(h, 'tools/list')).message.result.tools[0].icons).toEqual(icons);
    expect((await call(h, 'prompts/list')).message.result.prompts[0].icons).toEqual(icons);
    expect((await call(h, 'resources/list')).message.result.resources[0].icons).toEqual(icons);
  });

  test("an engine error in a tool reaches the model as a generic failure; its text is the log's and the trace's", async () => {
    const s = new McpServer({ name: 'engine', version: '1' });
    s.tool('buggy', {}, () => {
      const thing = {} as { run(): string };
      return thing.run();
    });
    s.tool('deep', {}, () => {
      const recurse = (n: number): number => recurse(n + 1) + 1;
      return String(recurse(0));
    });
    s.tool('honest', {}, () => {
      throw new Error('No such city: Atlantis');
    });
    const events: RequestEvent[] = [];
    const h = createMcpHandler(s, { onRequest: (event) => events.push(event) });
    for (const name of ['buggy', 'deep']) {
      const answer = await call(h, 'tools/call', { name });
      expect(answer.message.result).toEqual({
        content: [{ type: 'text', text: `Tool ${name} failed with an internal error` }],
        isError: true,
        resultType: 'complete',
        _meta: expect.anything(),
      });
      expect(JSON.stringify(answer.message)).not.toMatch(/is not a function|call stack/);
    }
    expect(events.map((event) => event.error)).toEqual([
      expect.stringMatching(/^TypeError: .*is not a function/),
      expect.stringMatching(/^RangeError: Maximum call stack/),
    ]);
    // An Error the tool threw on purpose is what the model reads.
    const honest = await call(h, 'tools/call', { name: 'honest' });
    expect(honest.message.result.content).toEqual([
      { type: 'text', text: 'No such city: Atlantis' },
    ]);
    expect(events.at(-1)?.error).toBeUndefined();
  });

  test('resources: list, read text and binary, templates, not found is -32602', async () => {
    const list = (await call(handler, 'resources/list')).message.result;
    expect(list.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'docs://readme',
      'docs://logo',
    ]);
    const templates = (await call(handler, 'resources/templates/list')).message.result;
    expect(templates.resourceTemplates[0]).toMatchObject({
      uriTemplate: 'users://{id}/profile',
      name: 'user',
    });
    const text = (await call(handler, 'resources/read', { uri: 'docs://readme' })).message.result;
    expect(text).toMatchObject({
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi' }],
      ttlMs: 60_000,
    });
    const blob = (await call(handler, 'resources/read', { uri: 'docs://logo' })).message.result;
    expect(blob.contents[0].blob).toBe(btoa(String.fromCharCode(137, 80, 78, 71)));
    const templated = (await call(handler, 'resources/read', { uri: 'users://bob/profile' }))
      .message.result;
    expect(JSON.parse(templated.contents[0].text)).toEqual({ id: 'bob' });
    const missing = (await call(handler, 'resources/read', { uri: 'docs://nope' })).message;
    expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'docs://nope' } });
  });

  test('prompts: list with arguments, get, missing argument is -32602', async () => {
    const list = (await call(handler, 'prompts/list')).message.result;
    expect(list.prompts[0]).toEqual({
      name: 'review',
      description: 'Review code',
      arguments: [
        { name: 'language', description: 'Language', required: true },
        { name: 'style', required: false },
      ],
    });
    const got = (
      await call(handler, 'prompts/get', { name: 'review', arguments: { language: 'go' } })
    ).message.result;
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review this go code' } },
    ]);
    expect(
      (await call(handler, 'prompts/get', { name: 'review', arguments: {} })).message.error.code,
    ).toBe(-32602);
    expect((await call(handler, 'prompts/get', { name: 'nope' })).message.error.code).toBe(-32602);
  });

  test('completion for prompt arguments and template variables', async () => {
    const prompt = (
      await call(handler, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'review' },
        argument: { name: 'language', value: 'r' },
      })
    ).message.result;
    expect(prompt.completion).toEqual({ values: ['rust', 'ruby'], total: 2, hasMore: false });
    const template = (
      await call(handler, 'completion/complete', {
        ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
        argument: { name: 'id', value: 'c' },
      })
    ).message.result;
    expect(template.completion.values).toEqual(['carol']);
  });

  test('pagination: pages of pageSize with an opaque cursor; a bad cursor is -32602', async () => {
    const paged = createMcpHandler(server(), { pageSize: 2 });
    const first = (await call(paged, 'tools/list')).message.result;
    expect(first.tools).toHaveLength(2);
    const second = (await call(paged, 'tools/list', { cursor: first.nextCursor })).message.result;
    expect(second.tools.map((t: { name: string }) => t.name)).toEqual(['shout']);
    expect(second.nextCursor).toBeUndefined();
    expect((await call(paged, 'tools/list', { cursor: 'bogus' })).message.error.code).toBe(-32602);
  });
});

describe('subscriptions/listen', () => {
  test('acknowledges first, delivers only what was asked for, tagged with the subscription id', async () => {
    const s = server();
    const handler = createMcpHandler(s);
    const response = await handler.fetch(
      modernRequest(
        'subscriptions/listen',
        { notifications: { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] } },
        { id: 'sub-1' },
      ),
    );
    const reader = new SseReader(response);
    const [ack] = await reader.messages(1);
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      },
    });
    s.notifyListChanged('prompts'); // not asked for: must not arrive
    s.notifyResourceUpdated('docs://logo'); // not subscribed
    const extra = s.tool('late', {}, () => 'late');
    s.notifyResourceUpdated('docs://readme');
    expect(await reader.messages(2)).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/tools/list_changed',
        params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
      },
      {
        jsonrpc: '2.0',
        method: 'notifications/resources/updated',
        params: {
          uri: 'docs://readme',
          _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
        },
      },
    ]);
    extra.remove();
    await reader.cancel();
    await expect.poll(() => handler.inFlight).toBe(0);
  });
});

test('a reader throwing ResourceNotFoundError is answered -32602 with the uri (2026-07-28)', async () => {
  const s = new McpServer({ name: 'nf', version: '1' });
  s.resourceTemplate('item', 'items://{id}', {}, (uri, { id }) => {
    if (id !== 'known') throw new ResourceNotFoundError(uri);
    return 'known item';
  });
  const handler = createMcpHandler(s);
  expect(
    (await call(handler, 'resources/read', { uri: 'items://known' })).message.result.contents[0]
      .text,
  ).toBe('known item');
  const missing = (await call(handler, 'resources/read', { uri: 'items://other' })).message;
  expect(missing.error).toMatchObject({ code: -32602, data: { uri: 'items://other' } });
});
