/**
 * Mistakes a plain-JavaScript author makes that used to pass silently: a misspelt option (a tool
 * left without validation, a handler on the default path), the SDK v1 positional forms (a shape
 * taken for options: no validation at all), a non-object input schema (which MCP does not allow).
 * Each is now refused at registration or construction with what to write, or works as in SDK v1.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { checkOptionKeys, nearestName, optionKeys } from '../src/schema/option-keys.ts';
import { SessionManager } from '../src/sessions.ts';
import { MemoryTaskStore } from '../src/tasks.ts';
import { call } from './helpers.ts';

const server = () => new McpServer({ name: 'mistakes', version: '1' });

/** A call the types refuse, made anyway, as plain JavaScript would. */
const untyped = (fn: unknown) => fn as (...args: unknown[]) => unknown;

describe('unknown option names', () => {
  test.each([
    ['inputSchem', 'inputSchema', z.object({ a: z.number() })],
    ['inputSchem', 'inputSchema', { a: z.number() }],
    ['outputschema', 'outputSchema', z.object({})],
    ['descripton', 'description', 'Adds'],
    ['taskSuport', 'taskSupport', 'optional'],
  ])('tool(): "%s" is refused, naming "%s"', (typo, meant, value) => {
    const s = server();
    expect(() => s.tool('x', { [typo]: value } as never, () => '')).toThrow(
      new TypeError(`tool x: unknown option "${typo}" — did you mean "${meant}"?`),
    );
    expect(() => s.registerTool('y', { [typo]: {} } as never, () => '')).toThrow(
      `tool y: unknown option "${typo}" — did you mean "${meant}"?`,
    );
  });

  test('a name near none of the options is refused with the list of them', () => {
    expect(() => server().tool('x', { schema: {} } as never, () => '')).toThrow(
      'tool x: unknown option "schema" (known: title, description, inputSchema, outputSchema, taskSupport, taskStart, retry, annotations, icons, scopes, visibleTo, _meta)',
    );
  });

  test('prompts, resources and templates refuse theirs', () => {
    const s = server();
    expect(() => s.prompt('p', { argSchema: z.object({}) } as never, () => '')).toThrow(
      'prompt p: unknown option "argSchema" — did you mean "argsSchema"?',
    );
    expect(() => s.registerPrompt('q', { titel: 'Q' } as never, () => '')).toThrow(
      'prompt q: unknown option "titel" — did you mean "title"?',
    );
    expect(() => s.resource('r', 'r://x', { mimetype: 'text/plain' } as never, () => '')).toThrow(
      'resource r: unknown option "mimetype" — did you mean "mimeType"?',
    );
    expect(() =>
      s.resourceTemplate('t', 'r://{id}', { completion: {} } as never, () => ''),
    ).toThrow('resource template t: unknown option "completion" — did you mean "complete"?');
    // `complete` belongs to templates, not to fixed resources.
    expect(() => s.resource('r2', 'r://y', { complete: {} } as never, () => '')).toThrow(
      /resource r2: unknown option "complete"/,
    );
  });

  test('old names keep their own refusal, naming the new name', () => {
    const s = server();
    expect(() => s.tool('t', { input: z.object({}), descripton: 'x' } as never, () => '')).toThrow(
      'tool t: the option is named inputSchema, not input',
    );
    // An SDK v1 shape may have an argument named "input": the refusal says how to write it.
    expect(() => s.tool('u', { input: z.string() } as never, () => '')).toThrow(
      "for an argument named input, write server.tool('u', { inputSchema: { input: … } }, handler)",
    );
  });

  test.each([
    [{ allowedHost: ['a.example'] }, 'unknown option "allowedHost" — did you mean "allowedHosts"?'],
    [{ paht: '/rpc' }, 'unknown option "paht" — did you mean "path"?'],
    [{ keepAliveMS: 1 }, 'unknown option "keepAliveMS" — did you mean "keepAliveMs"?'],
    [{ corsOrigins: ['https://a.example'] }, 'unknown option "corsOrigins" (known: signal, path,'],
    [{ limits: { maxInflight: 1 } }, '"limits.maxInflight" — did you mean "limits.maxInFlight"?'],
    [
      { requestState: { secrets: 'x' } },
      '"requestState.secrets" — did you mean "requestState.secret"?',
    ],
    [{ cache: { ttl: 1 } }, 'unknown option "cache.ttl" — did you mean "cache.ttlMs"?'],
    [{ tasks: { pollInterval: 5 } }, '"tasks.pollInterval" — did you mean "tasks.pollIntervalMs"?'],
    [{ cors: { origin: '*' } }, 'unknown option "cors.origin" — did you mean "cors.origins"?'],
    [
      { auth: { resource: 'https://a.example/mcp', authorizationServer: ['https://as.example'] } },
      '"auth.authorizationServer" — did you mean "auth.authorizationServers"?',
    ],
    [{ limits: 5 }, 'createMcpHandler(): option "limits" must be an object'],
  ])('createMcpHandler(%j) is refused', (options, message) => {
    expect(() => createMcpHandler(server(), options as never)).toThrow(TypeError);
    expect(() => createMcpHandler(server(), options as never)).toThrow(message);
  });

  test('what is the caller’s own object is not checked: stores, managers, instrumentation', async () => {
    const store = Object.assign(new MemoryTaskStore(), { extra: 1 });
    const handler = createMcpHandler(server(), {
      sessions: new SessionManager(),
      tasks: { store, ttlMs: 1000 },
      instrumentation: Object.assign({ requestStart: () => undefined }, { mine: true }) as never,
      limits: { maxInFlight: 5 },
      cors: { origins: '*' },
      requestState: { secret: 'x' },
      cache: { ttlMs: 0, cacheScope: 'public' },
    });
    await handler.close();
    expect(() => createMcpHandler(server(), { tasks: false })).not.toThrow();
  });

  test('the known-keys list is checked by the compiler against its interface', () => {
    interface Options {
      port?: number;
      hostname?: string;
    }
    expect(optionKeys<Options>()(['port', 'hostname'])).toEqual(['port', 'hostname']);
    // @ts-expect-error — "hostname" is missing from the list
    optionKeys<Options>()(['port']);
    // @ts-expect-error — "prot" is not an option
    optionKeys<Options>()(['port', 'hostname', 'prot']);
  });

  test('the nearest name: edits, swaps, case; nothing when all are far', () => {
    expect(nearestName('paht', ['port', 'path'])).toBe('path');
    expect(nearestName('ALLOWEDHOSTS', ['allowedHosts'])).toBe('allowedHosts');
    expect(nearestName('hostnme', ['port', 'hostname'])).toBe('hostname');
    expect(nearestName('zzz', ['port', 'hostname'])).toBeUndefined();
    expect(() => checkOptionKeys(null, ['a'], 'f()')).toThrow('f(): options must be an object');
    expect(() => checkOptionKeys({ a: 1 }, ['a'], 'f()')).not.toThrow();
  });
});

describe('the MCP SDK v1 positional forms', () => {
  const shape = { a: z.number(), b: z.number().optional() };
  const sum = ({ a, b }: { a: number; b: number | undefined }) => String(a + (b ?? 0));

  test('tool(name, shape, handler) and the forms with a description and annotations validate', async () => {
    const s = server();
    s.tool('plain', shape, ({ a, b }) => {
      expectTypeOf(a).toEqualTypeOf<number>();
      expectTypeOf(b).toEqualTypeOf<number | undefined>();
      return sum({ a, b });
    });
    s.tool('described', 'Adds', shape, sum);
    s.tool('annotated', shape, { readOnlyHint: true }, sum);
    s.tool('both', 'Adds', shape, { readOnlyHint: true }, sum);
    s.tool('empty', 'Takes nothing', {}, (args) => JSON.stringify(args));
    const handler = createMcpHandler(s);
    const { tools } = (await call(handler, 'tools/list')).message.result;
    const schema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a'],
    };
    expect(tools).toEqual([
      { name: 'plain', inputSchema: schema },
      { name: 'described', description: 'Adds', inputSchema: schema },
      { name: 'annotated', inputSchema: schema, annotations: { readOnlyHint: true } },
      {
        name: 'both',
        description: 'Adds',
        inputSchema: schema,
        annotations: { readOnlyHint: true },
      },
      { name: 'empty', description: 'Takes nothing', inputSchema: { type: 'object' } },
    ]);
    for (const name of ['plain', 'described', 'annotated', 'both']) {
      const bad = await call(handler, 'tools/call', { name, arguments: { a: 'not a number' } });
      expect(bad.message.error.code).toBe(-32602);
      expect(bad.message.error.data.issues.map((i: { path: string }) => i.path)).toEqual(['a']);
      const ok = await call(handler, 'tools/call', { name, arguments: { a: 1, b: 2 } });
      expect(ok.message.result.content).toEqual([{ type: 'text', text: '3' }]);
    }
    await handler.close();
  });

  test('a shape is told from options by its schemas: { title: z.string() } is a shape', async () => {
    const s = server();
    s.tool('note', { title: z.string(), description: z.string() }, ({ title }) => title);
    s.tool('options', { title: 'Options', inputSchema: z.object({ n: z.number() }) }, () => '');
    s.tool('schemas', { inputSchema: z.object({ n: z.number() }) }, () => '');
    const handler = createMcpHandler(s);
    const { tools } = (await call(handler, 'tools/list')).message.result;
    expect(tools[0]).toEqual({
      name: 'note',
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, description: { type: 'string' } },
        required: ['title', 'description'],
      },
    });
    const n = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    expect(tools[1]).toMatchObject({ name: 'options', title: 'Options', inputSchema: n });
    expect(tools[2]).toMatchObject({ name: 'schemas', inputSchema: n });
    const bad = await call(handler, 'tools/call', { name: 'note', arguments: { title: 1 } });
    expect(bad.message.error.code).toBe(-32602);
    await handler.close();
  });

  test('prompt(name, argsShape, handler), with or without a description, validates', async () => {
    const s = server();
    s.prompt('review', { language: z.string() }, ({ language }) => {
      expectTypeOf(language).toEqualTypeOf<string>();
      return `Review this ${language} code`;
    });
    s.prompt('described', 'Reviews code', { language: z.string() }, ({ language }) => language);
    const handler = createMcpHandler(s);
    const { prompts } = (await call(handler, 'prompts/list')).message.result;
    const args = [{ name: 'language', required: true }];
    expect(prompts).toEqual([
      { name: 'review', arguments: args },
      { name: 'described', description: 'Reviews code', arguments: args },
    ]);
    for (const name of ['review', 'described']) {
      const bad = await call(handler, 'prompts/get', { name, arguments: {} });
      expect(bad.message.error.code).toBe(-32602);
    }
    const ok = await call(handler, 'prompts/get', {
      name: 'review',
      arguments: { language: 'Go' },
    });
    expect(ok.message.result.messages[0].content.text).toBe('Review this Go code');
    await handler.close();
  });

  test('the forms without a schema are refused with what to write (SDK v1 called them with extra alone)', () => {
    const s = server();
    const fn = () => '';
    const v1 = 'is the MCP SDK v1 form, whose handler gets (extra) alone';
    // @ts-expect-error — not a form of ours
    expect(() => s.tool('a', fn)).toThrow(
      `tool a: tool(name, handler) ${v1}; here a handler gets (args, ctx): write server.tool('a', {}, (args, ctx) => …)`,
    );
    // @ts-expect-error — not a form of ours
    expect(() => s.tool('b', 'Does b', fn)).toThrow(
      `tool b: tool(name, description, handler) ${v1}; here a handler gets (args, ctx): write server.tool('b', { description }, (args, ctx) => …)`,
    );
    expect(() => untyped(s.tool).call(s, 'c', 'Does c', { readOnlyHint: true }, fn)).toThrow(
      "write server.tool('c', { description, annotations }, (args, ctx) => …)",
    );
    // @ts-expect-error — not a form of ours
    expect(() => s.prompt('p', fn)).toThrow(
      `prompt p: prompt(name, handler) ${v1}; here a handler gets (args, ctx): write server.prompt('p', {}, (args, ctx) => …)`,
    );
    // @ts-expect-error — not a form of ours
    expect(() => s.prompt('q', 'Does q', fn)).toThrow(
      "write server.prompt('q', { description }, (args, ctx) => …)",
    );
    expect(() => untyped(s.tool).call(s, 'd', z.object({ a: z.number() }), fn)).toThrow(
      "tool d: the schema goes in the options object: write server.tool('d', { inputSchema: schema }, …)",
    );
    expect(() => untyped(s.tool).call(s, 'e', 'Does e', { inputSchema: {} }, fn)).toThrow(
      'tool e: unexpected arguments after the name (string, object, function)',
    );
  });

  test('registerTool and registerPrompt keep the SDK v2 form: a shape there is not options', () => {
    const s = server();
    expect(() => s.registerTool('t', { a: z.number() } as never, () => '')).toThrow(
      /tool t: unknown option "a"/,
    );
    expect(() => s.registerPrompt('p', { language: z.string() } as never, () => '')).toThrow(
      /prompt p: unknown option "language"/,
    );
  });
});

describe('input and output schemas must be object schemas', () => {
  test.each([
    ['zod z.string()', z.string(), 'type "string"'],
    [
      'a zod union',
      z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]),
      'a schema without "type" (anyOf)',
    ],
    ['valibot v.string()', toStandardJsonSchema(v.string()), 'type "string"'],
    ['JSON Schema { type: "string" }', { type: 'string' }, 'type "string"'],
    [
      'JSON Schema { type: ["object", "null"] }',
      { type: ['object', 'null'] },
      'type ["object","null"]',
    ],
    [
      'JSON Schema without type',
      { properties: { a: { type: 'string' } } },
      'a schema without "type" (properties)',
    ],
    ['an empty JSON Schema', {}, 'an empty schema'],
  ])('inputSchema %s is refused', (_, schema, got) => {
    expect(() => server().tool('x', { inputSchema: schema as never }, () => '')).toThrow(
      new TypeError(`tool x: inputSchema must be an object schema (type "object"), got ${got}`),
    );
  });

  test('outputSchema and argsSchema too; object schemas pass', () => {
    const s = server();
    expect(() => s.tool('o', { outputSchema: z.array(z.number()) }, () => '')).toThrow(
      'tool o: outputSchema must be an object schema (type "object"), got type "array"',
    );
    expect(() => s.prompt('p', { argsSchema: z.string() as never }, () => '')).toThrow(
      'prompt p: argsSchema must be an object schema (type "object"), got type "string"',
    );
    s.tool('ok', { inputSchema: z.object({}), outputSchema: { type: 'object' } }, () => '');
    s.tool('ok2', { inputSchema: toStandardJsonSchema(v.object({ a: v.string() })) }, () => '');
  });
});
